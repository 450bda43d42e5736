package io.phoenixtxn.tm;

import java.util.concurrent.CompletableFuture;

/**
 * The control plane of every transaction (FAST'17 sec. 5.3, VLDB'18 Alg. 2). Implemented in process by
 * {@link TransactionManagerCore} and over the network by the TM client; callers cannot tell the two apart.
 *
 * <p>Write sets and table ids are 64-bit hashes ({@code io.phoenixtxn.client.WriteSetHashing}); the TM never sees keys.
 */
public interface TransactionManager extends AutoCloseable {

    /** A new start timestamp (= transaction id), a slot start in {@link io.phoenixtxn.snapshot.TimestampLayout}. */
    long begin() throws TmException;

    /**
     * Decides a transaction: a commit timestamp, or an abort with its reason. Does not write anything durable; the
     * client's commit-table write is the commit point (Omid LL).
     *
     * @param txId     the start timestamp returned by {@link #begin()}
     * @param rowHashes hashes of every (table, row) the transaction wrote and wants conflict detection for
     * @param tableIds hashes of every table it wrote, including conflict-free writes (fences apply to them)
     */
    default CommitDecision commit(long txId, long[] rowHashes, long[] tableIds) throws TmException {
        return commit(txId, txId, rowHashes, tableIds);
    }

    /**
     * Decides a transaction whose writes were computed from an older snapshot than its own start: Phoenix's commit
     * retry re-sends the writes of a transaction that failed, in a new transaction. Write-write conflicts are then
     * checked against every commit after {@code conflictsSince} (the failed transaction's start), so the replay
     * commits only if the original could have; fences and the TM's decision bookkeeping use {@code txId}.
     *
     * @param conflictsSince at most {@code txId}; {@code txId} itself for an ordinary transaction
     */
    CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds) throws TmException;

    /**
     * A fence timestamp for a table: every transaction that started before it and writes the table aborts at
     * commit; every later one is unaffected. Fences survive a TM failover.
     */
    long fence(long tableId) throws TmException;

    /**
     * Begins a bulk load: a transaction whose cells reach the tables as files (every cell at its start timestamp)
     * and which holds the tables until it ends. Meanwhile every other commit that writes one of them aborts
     * as fenced ({@link AbortReason#FENCE}); its own commit ({@link #commit}) also fences the tables at its commit
     * timestamp, so a transaction that began before the load became visible cannot write them afterwards. A load
     * that is finished without a commit, or whose lease runs out, releases the tables. The default refuses.
     *
     * @param tableIds hashes of every table the load writes (the table and its indexes)
     * @throws TmException when another load holds one of the tables, or the TM cannot begin loads
     */
    default long beginBulkLoad(long[] tableIds) throws TmException {
        throw new TmException(this + " does not take bulk loads");
    }

    /**
     * First table id of a bulk load's commit: a TM that does not hold the load's tables (its lease ran out, a failover
     * happened) must refuse it rather than decide it as an ordinary transaction, which would skip the fences at its
     * commit timestamp.
     */
    long BULK_LOAD_COMMIT = Long.MIN_VALUE;

    /**
     * Whether the TM decided to commit a writer that a reader found pending, asked for a reader that started at
     * {@code readerTxId}. The default answers UNKNOWN, which is always safe (the reader then waits and force-aborts,
     * as in Omid LL).
     */
    default PendingStatus pendingStatus(long writerTxId, long readerTxId) throws TmException {
        return PendingStatus.unknown();
    }

    /**
     * {@link #pendingStatus} as a future, for callers that must not hold a thread while the TM waits for a decision
     * in progress (the TM server's workers). Failures are {@link TmException}s. The default runs the blocking call.
     */
    default CompletableFuture<PendingStatus> pendingStatusAsync(long writerTxId, long readerTxId) {
        try {
            return CompletableFuture.completedFuture(pendingStatus(writerTxId, readerTxId));
        } catch (TmException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A fresh timestamp, above every timestamp any primary issued before the call, that opens no transaction: it holds
     * no GC horizon and nothing finishes it. Region servers bootstrap and extend their fast-path version clocks with
     * it (VLDB'18 sec. 4.3). The default refuses: a TM that cannot vouch for the freshness of what it answers must not
     * answer at all.
     */
    default long timestamp() throws TmException {
        throw new TmException(this + " does not issue bare timestamps; the fast path needs a TM that does");
    }

    /**
     * {@link #timestamp()} as a future, for region-server threads that must not wait for the TM. Failures are
     * {@link TmException}s. The default runs the blocking call.
     */
    default CompletableFuture<Long> timestampAsync() {
        try {
            return CompletableFuture.completedFuture(timestamp());
        } catch (TmException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Transactions that started below this timestamp can no longer commit. */
    long lowWaterMark() throws TmException;

    /**
     * The transactions (start timestamps, fences) ended on the client: committed, rolled back, or read-only and done.
     * They stop holding the GC horizon back. Over the network this does not wait for an answer.
     */
    default void finished(long[] txIds) throws TmException {
    }

    /**
     * Renews the leases of transactions still open on the client (each holds the GC horizon for
     * phoenix.txn.tm.transaction.lease.ms after its begin or last renewal).
     *
     * @return the ids among them the TM no longer holds: expired, their snapshot may be garbage-collected
     */
    default long[] keepAlive(long[] txIds) throws TmException {
        return new long[0];
    }

    /** The GC horizon ({@link Horizon}); {@link Horizon#UNKNOWN} while this TM cannot tell. */
    default Horizon horizon() throws TmException {
        return Horizon.UNKNOWN;
    }

    @Override
    void close();
}
