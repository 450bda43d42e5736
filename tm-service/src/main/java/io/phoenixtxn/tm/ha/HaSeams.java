package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.Clock;

import java.util.Objects;

/**
 * What a {@link TmHaService} takes from its environment, replaceable for tests and embedding: the wall clock the
 * oracle follows, the monotonic clock the lease is measured with, and the listener for primacy changes.
 */
public record HaSeams(Clock wallClock, MonotonicClock monotonicClock, HaListener listener) {

    public HaSeams {
        Objects.requireNonNull(wallClock, "wallClock");
        Objects.requireNonNull(monotonicClock, "monotonicClock");
        Objects.requireNonNull(listener, "listener");
    }

    public static HaSeams defaults() {
        return new HaSeams(Clock.SYSTEM, MonotonicClock.SYSTEM, HaListener.NONE);
    }

    public HaSeams withWallClock(Clock clock) {
        return new HaSeams(clock, monotonicClock, listener);
    }

    public HaSeams withMonotonicClock(MonotonicClock clock) {
        return new HaSeams(wallClock, clock, listener);
    }

    public HaSeams withListener(HaListener newListener) {
        return new HaSeams(wallClock, monotonicClock, newListener);
    }
}
