package io.phoenixtxn.tm;

/**
 * A {@link TransactionManager} that can decide a batch of requests without allocating and, when nothing would
 * make it wait, on the caller's thread: the TM server's pipeline (FAST'17 sec. 5: read a batch of requests,
 * decide them, reply once) uses it to decide on its I/O threads instead of handing each request to a worker.
 * Decisions are the same as through {@link TransactionManager}'s methods.
 */
public interface BatchingTransactionManager extends TransactionManager {

    /**
     * True if deciding requests that draw up to {@code timestamps} timestamps would not wait now: no fence is being
     * persisted (commits wait for it) and the timestamp reservation covers them (extending it is a storage round
     * trip under HA). A hint: a caller that decides anyway is still correct, it may just wait.
     */
    boolean decidesWithoutWaiting(int timestamps);

    /** {@code count} begins sharing one timestamp-oracle step, written to {@code out[from, from + count)}. */
    void begin(int count, long[] out, int from) throws TmException;

    /**
     * A commit of a write set prepared by this thread ({@code rowCount} rows before deduplication), the tables as
     * {@code tableIds[from, to)}: a commit timestamp (positive) or an abort ({@link CommitDecision#reasonOf}).
     */
    long commit(long txId, long conflictsSince, int rowCount, ConflictKeys keys, long[] tableIds, int from, int to)
            throws TmException;

    /** {@link #finished(long[])} for {@code txIds[from, to)}. */
    void finished(long[] txIds, int from, int to) throws TmException;
}
