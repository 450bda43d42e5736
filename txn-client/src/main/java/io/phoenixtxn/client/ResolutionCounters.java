package io.phoenixtxn.client;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide counts of what readers did about versions without a commit cell ({@link CommitResolver}, Omid LL's
 * reader side) and of the commit cells they healed: on a region server, the region server's metrics
 * ({@code RegionServerTxnMetrics}) expose them; elsewhere (tools, tests) they are only read.
 *
 * <p>{@link LongAdder}s: readers on many handler threads add without contending, and nothing is allocated.
 */
public final class ResolutionCounters {
    private static final LongAdder PENDING_RESOLVED = new LongAdder();
    private static final LongAdder STATUS_QUERIES = new LongAdder();
    private static final LongAdder STATUS_UNKNOWN = new LongAdder();
    private static final LongAdder WAITS = new LongAdder();
    private static final LongAdder FORCE_ABORTS = new LongAdder();
    private static final LongAdder COMMIT_CELLS_HEALED = new LongAdder();

    private ResolutionCounters() {
    }

    static void pendingResolved() {
        PENDING_RESOLVED.increment();
    }

    static void statusQueried(boolean unknown) {
        STATUS_QUERIES.increment();
        if (unknown) {
            STATUS_UNKNOWN.increment();
        }
    }

    static void waited() {
        WAITS.increment();
    }

    static void forceAborted() {
        FORCE_ABORTS.increment();
    }

    /** A reader's helper wrote a commit cell it had found only in the commit table. */
    public static void commitCellHealed() {
        COMMIT_CELLS_HEALED.increment();
    }

    /** Versions without a commit cell that a reader resolved through the commit table, the TM or a force-abort. */
    public static long pendingVersionsResolved() {
        return PENDING_RESOLVED.sum();
    }

    /** Pending-status questions asked of a TM. */
    public static long statusQueries() {
        return STATUS_QUERIES.sum();
    }

    /** Of those, answered UNKNOWN (or not answered in time, or no TM reachable). */
    public static long statusUnknown() {
        return STATUS_UNKNOWN.sum();
    }

    /** Readers that waited for a pending writer's commit point ({@code phoenix.txn.reader.pending.wait.ms}). */
    public static long waits() {
        return WAITS.sum();
    }

    /** Writers a reader aborted by writing their invalid marker. */
    public static long forceAborts() {
        return FORCE_ABORTS.sum();
    }

    /** Commit cells written by readers' helpers. */
    public static long commitCellsHealed() {
        return COMMIT_CELLS_HEALED.sum();
    }
}
