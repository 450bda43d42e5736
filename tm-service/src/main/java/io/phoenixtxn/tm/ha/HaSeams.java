package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.metrics.TmMetrics;

import java.util.Objects;

/**
 * What a {@link TmHaService} takes from its environment, replaceable for tests and embedding: the wall clock the
 * oracle follows, the monotonic clock the lease is measured with, the listener for primacy changes, and the
 * metrics the cores of its successive primary terms count into.
 */
public record HaSeams(Clock wallClock, MonotonicClock monotonicClock, HaListener listener, TmMetrics metrics) {

    public HaSeams {
        Objects.requireNonNull(wallClock, "wallClock");
        Objects.requireNonNull(monotonicClock, "monotonicClock");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(metrics, "metrics");
    }

    /** Seams with metrics of their own. */
    public HaSeams(Clock wallClock, MonotonicClock monotonicClock, HaListener listener) {
        this(wallClock, monotonicClock, listener, new TmMetrics());
    }

    public static HaSeams defaults() {
        return new HaSeams(Clock.SYSTEM, MonotonicClock.SYSTEM, HaListener.NONE);
    }

    public HaSeams withWallClock(Clock clock) {
        return new HaSeams(clock, monotonicClock, listener, metrics);
    }

    public HaSeams withMonotonicClock(MonotonicClock clock) {
        return new HaSeams(wallClock, clock, listener, metrics);
    }

    public HaSeams withListener(HaListener newListener) {
        return new HaSeams(wallClock, monotonicClock, newListener, metrics);
    }

    public HaSeams withMetrics(TmMetrics newMetrics) {
        return new HaSeams(wallClock, monotonicClock, listener, newMetrics);
    }
}
