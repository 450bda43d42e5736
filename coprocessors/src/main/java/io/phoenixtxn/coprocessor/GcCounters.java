package io.phoenixtxn.coprocessor;

import java.util.concurrent.atomic.LongAdder;

/**
 * Region-server-wide counts of what compaction-time GC did, for logs, tests and (later) the region server's metrics:
 * rows decided in two passes because they outgrew the row buffer ({@link StreamedRowGc}), and rows written unchanged
 * because they outgrew every bound.
 */
public final class GcCounters {
    private static final LongAdder ROWS_STREAMED = new LongAdder();
    private static final LongAdder ROWS_UNCHANGED = new LongAdder();

    private GcCounters() {
    }

    static void streamed() {
        ROWS_STREAMED.increment();
    }

    static void unchanged() {
        ROWS_UNCHANGED.increment();
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
