package io.phoenixtxn.coprocessor;

import java.util.concurrent.atomic.LongAdder;

/**
 * Region-server-wide counts of what compaction-time GC did, for logs, tests and the region server's metrics
 * ({@link RegionServerTxnMetrics}): flushes and compactions collected, cells they read and dropped, rows decided in
 * two passes because they outgrew the row buffer ({@link StreamedRowGc}), and rows written unchanged because they
 * outgrew every bound.
 */
public final class GcCounters {
    private static final LongAdder ROWS_STREAMED = new LongAdder();
    private static final LongAdder ROWS_UNCHANGED = new LongAdder();
    private static final LongAdder RUNS = new LongAdder();
    private static final LongAdder CELLS_SCANNED = new LongAdder();
    private static final LongAdder CELLS_DROPPED = new LongAdder();

    private GcCounters() {
    }

    static void streamed() {
        ROWS_STREAMED.increment();
    }

    static void unchanged() {
        ROWS_UNCHANGED.increment();
    }

    /** One flush or compaction collected: {@code scanned} cells in, {@code dropped} of them not written out. */
    static void ran(long scanned, long dropped) {
        RUNS.increment();
        CELLS_SCANNED.add(scanned);
        CELLS_DROPPED.add(dropped);
    }

    /** Flushes and compactions GC ran over since this region server started. */
    public static long runs() {
        return RUNS.sum();
    }

    /** Cells those read. */
    public static long cellsScanned() {
        return CELLS_SCANNED.sum();
    }

    /** Cells those dropped (overwritten, aborted, deleted, expired versions and their commit cells). */
    public static long cellsDropped() {
        return CELLS_DROPPED.sum();
    }

    /** Rows decided in two passes since this region server started. */
    public static long rowsStreamed() {
        return ROWS_STREAMED.sum();
    }

    /** Rows written unchanged for their size since this region server started. */
    public static long rowsUnchanged() {
        return ROWS_UNCHANGED.sum();
    }
}
