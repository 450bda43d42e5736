package io.phoenixtxn.tm;

import java.util.concurrent.atomic.AtomicLong;

/** A wall clock the test moves by hand: frozen unless told otherwise, may step backwards. */
final class ManualClock implements Clock {
    private final AtomicLong millis;

    ManualClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    void set(long newMillis) {
        millis.set(newMillis);
    }

    void advance(long deltaMillis) {
        millis.addAndGet(deltaMillis);
    }
}
