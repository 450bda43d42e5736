package io.phoenixtxn.client;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Entry point of the transactional HBase client (Omid LL, VLDB'18 Alg. 3). Composed of small layers:
 * {@link TransactionalTable} (tentative writes, snapshot reads), the TM (decision), {@link CommitTable} (the
 * commit point, written here by the client), {@link PostCommitter} (commit cells, entry cleanup, rollback).
 *
 * <p>The TM is looked up through a supplier on every call: a connection service restarting its TM must never
 * leave a transaction holding a closed one.
 */
public final class TxnClient implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TxnClient.class);

    private final Connection connection;
    private final Supplier<TransactionManager> tm;
    private final TxnClientConfig config;
    private final CommitTable commitTable;
    private final PostCommitter postCommitter;
    private final CommitTableCleaner cleaner;
    private final OpenTransactionTracker openTransactions;
    /** Keep-alives and "finished" messages: nothing else runs here, so open transactions never expire waiting. */
    private final ScheduledExecutorService leaseRenewal;
    /** The commit-table cleaner and the tasks of the layers above ({@link #scheduleHousekeeping}). */
    private final ScheduledExecutorService housekeeping;
    private final TxnClientMetrics metrics;

    public TxnClient(Connection connection, Supplier<TransactionManager> tm, TxnClientConfig config)
            throws IOException {
        this(connection, tm, config, new HBaseCommitTable(connection, TableName.valueOf(config.commitTable()),
                config.commitPointTimeoutMs()));
        try (Admin admin = connection.getAdmin()) {
            CommitTableAdmin.ensureExists(admin, TableName.valueOf(config.commitTable()), config.commitTableRegions());
        }
    }

    /** With an explicit commit table (fault injection in tests). */
    public TxnClient(Connection connection, Supplier<TransactionManager> tm, TxnClientConfig config,
                     CommitTable commitTable) {
        this(connection, tm, config, commitTable, TxnClientMetrics.process());
    }

    /**
     * With an explicit commit table and metrics; the JVM's {@link TxnClientMetrics#process()} are exposed through
     * metrics2 (JMX, sinks), other metrics only to their owner.
     */
    public TxnClient(Connection connection, Supplier<TransactionManager> tm, TxnClientConfig config,
                     CommitTable commitTable, TxnClientMetrics metrics) {
        this.connection = connection;
        this.metrics = metrics;
        if (metrics == TxnClientMetrics.process()) {
            TxnClientMetrics.expose();
        }
        this.tm = tm;
        this.config = config;
        this.commitTable = commitTable;
        this.postCommitter = new PostCommitter(connection, commitTable, config.postCommitMode(), metrics);
        this.cleaner = new CommitTableCleaner(commitTable, postCommitter, metrics);
        this.openTransactions = new OpenTransactionTracker(tm, config.keepAliveIntervalMs(),
                config.transactionLeaseMs());
        // Lease renewals get a thread of their own: a long commit-table cleaning pass (thousands of post-commits a
        // lagging client left) or a slow task of the layers above on the housekeeping thread would otherwise hold
        // them back until open transactions expired locally ("snapshot too old" for a long reader, seen in
        // bin/bench-index after a live build).
        this.leaseRenewal = daemonScheduler("phoenix-txn-keep-alive");
        this.housekeeping = daemonScheduler("phoenix-txn-housekeeping");
        leaseRenewal.scheduleWithFixedDelay(quietly("telling the TM which transactions ended",
                openTransactions::flushFinished), config.finishedFlushMs(), config.finishedFlushMs(),
                TimeUnit.MILLISECONDS);
        long keepAlive = Math.max(1, config.keepAliveIntervalMs() / 2);
        leaseRenewal.scheduleWithFixedDelay(quietly("renewing open transactions", openTransactions::keepAlive),
                keepAlive, keepAlive, TimeUnit.MILLISECONDS);
        if (config.cleanerIntervalMs() > 0) {
            scheduleCleaner(config.cleanerIntervalMs());
        }
    }

    private static ScheduledExecutorService daemonScheduler(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    private static Runnable quietly(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("Background task failed ({}); it runs again", what, e);
            }
        };
    }

    private void scheduleCleaner(long intervalMs) {
        housekeeping.scheduleWithFixedDelay(() -> {
            try {
                long graceUnits = intervalMs * io.phoenixtxn.snapshot.TimestampLayout.UNITS_PER_MILLI;
                cleaner.cleanOnce(io.phoenixtxn.snapshot.TimestampLayout.firstSlotOfMillis(
                        System.currentTimeMillis()) - graceUnits);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Commit-table cleaning failed; the next pass retries", e);
            }
        }, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Runs {@code task} every {@code periodMs} on this client's housekeeping thread until the client closes (for the
     * layers above, e.g. the Phoenix provider's metadata-cache repair); a failure is logged and the task runs again.
     */
    public void scheduleHousekeeping(String what, Runnable task, long periodMs) {
        housekeeping.scheduleWithFixedDelay(quietly(what, task), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** The cleaner of crashed clients' post-commits (also run periodically, see {@link TxnClientConfig}). */
    public CommitTableCleaner cleaner() {
        return cleaner;
    }

    public Transaction begin() throws IOException {
        return openTransactions.track(Transaction.begun(tm.get().begin()));
    }

    /**
     * Begins a transaction that may carry writes computed by an earlier transaction, started at
     * {@code earlierStart}, that failed to commit (Phoenix's commit retry re-sends such writes in a new
     * transaction). Its write-write conflicts are checked against every commit since {@code earlierStart}, so it
     * commits only if the earlier transaction could have: a replay can never overwrite a commit its values did not
     * see. {@link Transaction#notAReplay()} narrows the window back once the transaction is known to be new work.
     */
    public Transaction beginReplayOf(long earlierStart) throws IOException {
        return openTransactions.track(Transaction.begunAsReplay(tm.get().begin(), earlierStart));
    }

    /**
     * The transaction of an index population, which reads and writes at its fence ({@link #fence}): the fence holds
     * the TM's GC horizon, and this client renews and finishes it like any transaction it began.
     */
    public Transaction populationAt(long fence) {
        return openTransactions.track(Transaction.begun(fence));
    }

    /** Wraps a table for transactional reads and writes in the given {@link WriteMode}. */
    public TransactionalTable wrap(Table table, WriteMode mode) {
        // The commit table this client really commits to, which region servers check against theirs.
        return new TransactionalTable(table, mode, config.commitTable().getBytes(StandardCharsets.UTF_8));
    }

    /** Same as {@link #wrap}, for callers without a client (sub-task and decoded transactions). */
    public static TransactionalTable wrapTable(Table table, WriteMode mode) {
        return new TransactionalTable(table, mode);
    }

    public TransactionalTable table(TableName name) throws IOException {
        return wrap(connection.getTable(name), WriteMode.CHECKED);
    }

    /**
     * Commits, or aborts and throws {@link TxnAbortedException}. Read-only transactions commit without any round
     * trip. Any failure before the commit point rolls back and leaves nothing visible. A failure whose outcome
     * cannot be settled throws {@link TxnInDoubtException} and leaves the transaction for readers to settle. Once
     * the commit point is passed this returns normally: a post-commit failure is finished by readers and the
     * commit-table cleaner, never reported as a failed commit.
     */
    public void commit(Transaction tx) throws IOException {
        commit(tx, config.postCommitMode() == TxnClientConfig.PostCommitMode.SYNC);
    }

    /** @param syncPostCommit write commit cells before returning, whatever the configured mode */
    public void commit(Transaction tx, boolean syncPostCommit) throws IOException {
        if (!tx.canCommit()) {
            throw new IllegalStateException("This transaction view cannot commit (a sub-task or decoded copy of " + tx
                    + "); commit the transaction that owns it");
        }
        if (!tx.startCommitting()) {
            throw new IllegalStateException("Transaction " + tx.txId() + " is already " + tx.status());
        }
        long started = System.nanoTime();
        try {
            commitTracked(tx, syncPostCommit);
            metrics.committed(System.nanoTime() - started);
        } catch (TxnAbortedException e) {
            metrics.aborted(e.reason());
            throw e;
        } catch (TxnInDoubtException e) {
            metrics.inDoubt();
            throw e;
        } catch (TmException e) {
            metrics.tmUnavailable();
            throw e;
        } finally {
            openTransactions.ended(tx); // whatever the outcome, it no longer reads: the horizon may pass it
        }
    }

    private void commitTracked(Transaction tx, boolean syncPostCommit) throws IOException {
        if (tx.isExpired()) {
            tx.markAborted();
            postCommitter.removeTentativeCells(tx.writeSet().cells());
            throw new TxnAbortedException(tx.txId(), AbortReason.EXPIRED);
        }
        WriteSet writes = tx.writeSet();
        if (writes.isEmpty()) {
            tx.markCommitted(tx.txId());
            return;
        }
        long commitTs = decide(tx, writes);
        long decidedAt = System.nanoTime();
        Map<TableName, List<WrittenCell>> cells = writes.cells();
        ProtocolHooks.current().afterTmDecision(tx.txId(), commitTs);
        if (System.nanoTime() - decidedAt > TimeUnit.MILLISECONDS.toNanos(config.commitPointTimeoutMs())) {
            // Too late to write the commit point: the TM's commit-point horizon may pass this transaction, after
            // which nothing fences a late write (its invalid marker may be gone). Not written: not committed.
            rollBack(tx);
            throw new TxnAbortedException(tx.txId(), AbortReason.COMMIT_POINT_TOO_LATE);
        }
        if (!reachCommitPoint(tx, commitTs, cells)) {
            rollBack(tx);
            try {
                commitTable.delete(tx.txId());
            } catch (IOException e) {
                LOG.warn("Could not remove the invalid marker of transaction {}; compaction-time cleanup will", tx.txId(), e);
            }
            throw new TxnAbortedException(tx.txId(), AbortReason.INVALIDATED);
        }
        tx.markCommitted(commitTs);
        ProtocolHooks.current().afterCommitPoint(tx.txId(), commitTs);
        finishPostCommit(tx.txId(), commitTs, cells, syncPostCommit);
    }

    /** Asks the TM; on an abort or no answer, rolls back and throws (nothing is committed before the commit point). */
    private long decide(Transaction tx, WriteSet writes) throws IOException {
        CommitDecision decision;
        ProtocolHooks.current().beforeTmCommit(tx.txId());
        try {
            decision = tm.get().commit(tx.txId(), tx.conflictsSince(), writes.rowHashes(), writes.tableIds());
        } catch (TmException | RuntimeException e) {
            // Before the commit point nothing is decided: the client owns the commit point, so rolling back is safe.
            rollBack(tx);
            throw new TmException("Transaction " + tx.txId() + " rolled back: the transaction manager did not"
                    + " answer (" + e.getMessage() + ")", e);
        }
        if (!decision.isCommitted()) {
            ProtocolHooks.current().afterTmAbort(tx.txId(), decision.abortReason());
            rollBack(tx);
            throw new TxnAbortedException(tx.txId(), decision.abortReason());
        }
        return decision.commitTimestamp();
    }

    /**
     * Writes the commit point. True: committed. False: a reader invalidated the transaction first, or our own
     * invalidation of an unconfirmed write won, so it is known not to be committed. Throws
     * {@link TxnInDoubtException} when neither can be established.
     */
    private boolean reachCommitPoint(Transaction tx, long commitTs, Map<TableName, List<WrittenCell>> cells)
            throws IOException {
        byte[] record = WrittenCellsCodec.encode(tx.txId(), cells);
        long started = System.nanoTime();
        try {
            boolean committed = commitTable.tryCommit(tx.txId(), commitTs, record);
            metrics.commitTableWrite(System.nanoTime() - started);
            return committed;
        } catch (IOException e) {
            return settleOwnCommitAfterError(tx, cells, e);
        }
    }

    /**
     * The commit-table write failed in an unknown way: it may have landed. Settle it by invalidating our own
     * transaction: that fails only if a commit value is there (committed); if it succeeds, no commit value was there
     * at that moment, unless the write landed and the cleaner already completed it and removed the entry, which its
     * commit cells would show. Anything still unanswered leaves the outcome unknown: the transaction is in doubt,
     * nothing is rolled back, and readers (force-abort) or the cleaner settle it later.
     */
    private boolean settleOwnCommitAfterError(Transaction tx, Map<TableName, List<WrittenCell>> cells,
                                              IOException cause) throws IOException {
        try {
            if (!commitTable.tryInvalidate(tx.txId())) {
                return true;
            }
            if (postCommitter.anyCommitCellWritten(cells)) {
                commitTable.delete(tx.txId()); // our invalid marker came after a completed commit: stray
                return true;
            }
            return false;
        } catch (IOException again) {
            again.addSuppressed(cause);
            tx.markInDoubt();
            throw new TxnInDoubtException(tx.txId(), again);
        }
    }

    /** After the commit point the transaction is committed whatever happens here. */
    private void finishPostCommit(long txId, long commitTs, Map<TableName, List<WrittenCell>> cells, boolean sync) {
        try {
            postCommitter.postCommit(txId, commitTs, cells, sync);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Transaction {} committed, but writing its commit cells failed; its commit-table entry stays, so"
                    + " readers see it committed and the commit-table cleaner completes it", txId, e);
        }
    }

    /**
     * Rolls back: removes the tentative cells. Only a running transaction is rolled back: one whose commit is in
     * progress (on another thread), finished, or in doubt is left alone, since its commit point may have been
     * written and deleting its cells would destroy a committed transaction.
     */
    public void abort(Transaction tx) throws IOException {
        if (tx.abortIfRunning()) {
            metrics.aborted(AbortReason.CLIENT_ROLLBACK);
            openTransactions.ended(tx);
            postCommitter.removeTentativeCells(tx.writeSet().cells());
            return;
        }
        switch (tx.status()) {
            case COMMITTING:
                LOG.warn("Rollback of transaction {} ignored: its commit is in progress on another thread and"
                        + " decides the outcome", tx.txId());
                break;
            case IN_DOUBT:
                LOG.info("Transaction {} is not rolled back: its outcome is unknown (it may have committed); readers"
                        + " and the commit-table cleaner settle it", tx.txId());
                break;
            default:
                break; // already committed or aborted
        }
    }

    /** Rolls back a transaction this client is committing (before its commit point). */
    private void rollBack(Transaction tx) {
        tx.markAborted();
        try {
            postCommitter.removeTentativeCells(tx.writeSet().cells());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Rollback of {} left tentative cells behind; readers treat them as aborted and the cleaner"
                    + " removes them", tx, e);
        }
    }

    /** A fence on a table (CREATE INDEX): transactions that started before it and write the table abort. */
    public long fence(TableName table) throws IOException {
        return tm.get().fence(WriteSetHashing.tableId(table.getNameAsString().getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Renews the TM's hold of {@code txId}, a transaction or fence that another process of the same job holds (an
     * index build's fence, held by the tool while its map tasks read at it), and answers whether reads at it are
     * still safe: the TM holds it and its GC horizon is known and not above it. False once its lease lapsed, and
     * whenever the TM cannot tell (a new primary's grace period, in which it adopts what clients renew; no TM).
     */
    public boolean renewHold(long txId) throws IOException {
        TransactionManager manager = tm.get();
        if (manager.keepAlive(new long[] {txId}).length != 0) {
            return false;
        }
        Horizon horizon = manager.horizon();
        return horizon.isKnown() && horizon.gc() <= txId;
    }

    /** Bulk loads through this client's TM, commit table and lease renewal ({@link BulkLoads}). */
    public BulkLoads bulkLoads() {
        return new BulkLoads(connection, tm, commitTable, postCommitter, openTransactions,
                config.commitPointTimeoutMs());
    }

    public CommitTable commitTable() {
        return commitTable;
    }

    public PostCommitter postCommitter() {
        return postCommitter;
    }

    public TxnClientConfig config() {
        return config;
    }

    public Connection connection() {
        return connection;
    }

    /**
     * Ties an open transaction to whoever uses it: once {@code ownerAlive} answers false (a Phoenix connection was
     * closed without rolling back), the transaction is ended at the TM instead of kept alive.
     */
    public void ownedBy(Transaction tx, java.util.function.BooleanSupplier ownerAlive) {
        OpenTransactionTracker.ownedBy(tx, ownerAlive);
    }

    /** Transactions this client holds open at the TM (monitoring, tests). */
    public int openTransactionCount() {
        return openTransactions.openCount();
    }

    @Override
    public void close() {
        housekeeping.shutdownNow();
        leaseRenewal.shutdownNow();
        openTransactions.flushFinished();
        postCommitter.close();
    }
}
