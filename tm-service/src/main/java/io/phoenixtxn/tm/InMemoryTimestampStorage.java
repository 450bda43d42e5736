package io.phoenixtxn.tm;

import java.util.concurrent.atomic.AtomicLong;

/** Timestamp storage for a single process (tests, the embedded TM without HA). */
public final class InMemoryTimestampStorage implements TimestampStorage {
    private final AtomicLong max = new AtomicLong();

    @Override
    public long getMaxTimestamp() {
        return max.get();
    }

    @Override
    public boolean compareAndSet(long expected, long newMax) {
        return max.compareAndSet(expected, newMax);
    }
}
