package io.phoenixtxn.phoenix;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a repair run at most once per spacing, whatever the number of threads asking: the first asker after the
 * spacing has passed wins, the others skip. Used for the metadata-cache repair at read-only rollbacks
 * ({@link PhoenixTxnClient#repairMetadataAfterReadOnlyRollback}), which walks the whole cache.
 */
final class RepairPacer {
    private final long spacingNanos;
    private final AtomicLong lastNanos;

    /** The first {@link #due} at {@code startNanos} or later is due. */
    RepairPacer(long spacingNanos, long startNanos) {
        this.spacingNanos = spacingNanos;
        this.lastNanos = new AtomicLong(startNanos - spacingNanos);
    }

    /** True for exactly one caller per spacing (nanoTime arithmetic: differences only, never comparisons). */
    boolean due(long nowNanos) {
        long last = lastNanos.get();
        return nowNanos - last >= spacingNanos && lastNanos.compareAndSet(last, nowNanos);
    }
}
