package io.phoenixtxn.tm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Transactions that started below the low-water mark abort at commit: the conflict history they would need was
 * evicted, or they belong to an earlier TM epoch whose history this TM never had. Monotonic.
 */
public final class LowWaterMark {
    private final AtomicLong value = new AtomicLong();

    public long get() {
        return value.get();
    }

    /** Raises the mark to at least {@code candidate}. */
    public void raiseTo(long candidate) {
        long current;
        while (candidate > (current = value.get())) {
            if (value.compareAndSet(current, candidate)) {
                return;
            }
        }
    }
}
