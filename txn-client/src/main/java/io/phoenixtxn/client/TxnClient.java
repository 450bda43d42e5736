package io.phoenixtxn.client;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmException;
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
    private final java.util.concurrent.ScheduledExecutorService cleanerSchedule;

    public TxnClient(Connection connection, Supplier<TransactionManager> tm, TxnClientConfig config)
            throws IOException {
        this(connection, tm, config, new HBaseCommitTable(connection, TableName.valueOf(config.commitTable())));
        try (Admin admin = connection.getAdmin()) {
            CommitTableAdmin.ensureExists(admin, TableName.valueOf(config.commitTable()), config.commitTableRegions());
        }
    }

    /** With an explicit commit table (fault injection in tests). */
    public TxnClient(Connection connection, Supplier<TransactionManager> tm, TxnClientConfig config,
                     CommitTable commitTable) {
        this.connection = connection;
        this.tm = tm;
        this.config = config;
        this.commitTable = commitTable;
        this.postCommitter = new PostCommitter(connection, commitTable, config.postCommitMode());
        this.cleaner = new CommitTableCleaner(commitTable, postCommitter);
        this.cleanerSchedule = config.cleanerIntervalMs() > 0 ? scheduleCleaner(config.cleanerIntervalMs()) : null;
    }

    private java.util.concurrent.ScheduledExecutorService scheduleCleaner(long intervalMs) {
        java.util.concurrent.ScheduledExecutorService schedule =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "phoenix-txn-cleaner");
                    t.setDaemon(true);
                    return t;
                });
        schedule.scheduleWithFixedDelay(() -> {
            try {
                long graceUnits = intervalMs * io.phoenixtxn.snapshot.TimestampLayout.UNITS_PER_MILLI;
                cleaner.cleanOnce(io.phoenixtxn.snapshot.TimestampLayout.firstSlotOfMillis(
                        System.currentTimeMillis()) - graceUnits);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Commit-table cleaning failed; the next pass retries", e);
            }
        }, intervalMs, intervalMs, java.util.concurrent.TimeUnit.MILLISECONDS);
        return schedule;
    }

    /** The cleaner of crashed clients' post-commits (also run periodically, see {@link TxnClientConfig}). */
    public CommitTableCleaner cleaner() {
        return cleaner;
    }

    public Transaction begin() throws IOException {
        return Transaction.begun(tm.get().begin());
    }

    /** Wraps a table for transactional reads and writes. {@code conflictFree}: writes skip conflict detection. */
    public TransactionalTable wrap(Table table, boolean conflictFree) {
        return wrapTable(table, conflictFree);
    }

    /** Same as {@link #wrap}, for callers without a client (sub-task and decoded transactions). */
    public static TransactionalTable wrapTable(Table table, boolean conflictFree) {
        return new TransactionalTable(table, conflictFree);
    }

    public TransactionalTable table(TableName name) throws IOException {
        return wrap(connection.getTable(name), false);
    }

    /**
     * Commits, or aborts and throws {@link TxnAbortedException}. Read-only transactions commit without any round
     * trip. Any failure before the commit point rolls back and leaves nothing visible.
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
        if (!tx.isRunning()) {
            throw new IllegalStateException("Transaction " + tx.txId() + " is already " + tx.status());
        }
        WriteSet writes = tx.writeSet();
        if (writes.isEmpty()) {
            tx.markCommitted(tx.txId());
            return;
        }
        CommitDecision decision;
        ProtocolHooks.current().beforeTmCommit(tx.txId());
        try {
            decision = tm.get().commit(tx.txId(), writes.rowHashes(), writes.tableIds());
        } catch (TmException e) {
            // Before the commit point nothing is decided: the client owns the commit point, so rolling back is safe.
            rollbackQuietly(tx);
            throw new TmException("Transaction " + tx.txId() + " rolled back: the transaction manager did not"
                    + " answer (" + e.getMessage() + ")", e);
        }
        if (!decision.isCommitted()) {
            ProtocolHooks.current().afterTmAbort(tx.txId(), decision.abortReason());
            rollbackQuietly(tx);
            throw new TxnAbortedException(tx.txId(), decision.abortReason());
        }
        long commitTs = decision.commitTimestamp();
        Map<TableName, List<WrittenCell>> cells = writes.cells();
        ProtocolHooks.current().afterTmDecision(tx.txId(), commitTs);
        boolean committed;
        try {
            committed = commitTable.tryCommit(tx.txId(), commitTs, WrittenCellsCodec.encode(tx.txId(), cells));
        } catch (IOException e) {
            committed = resolveOwnCommitAfterError(tx, e);
        }
        if (!committed) {
            rollbackQuietly(tx);
            try {
                commitTable.delete(tx.txId());
            } catch (IOException e) {
                LOG.warn("Could not remove the invalid marker of transaction {}; compaction-time cleanup will", tx.txId(), e);
            }
            throw new TxnAbortedException(tx.txId(), AbortReason.INVALIDATED);
        }
        tx.markCommitted(commitTs);
        ProtocolHooks.current().afterCommitPoint(tx.txId(), commitTs);
        postCommitter.postCommit(tx.txId(), commitTs, cells, syncPostCommit);
    }

    /**
     * The commit-table write failed in an unknown way (it may or may not have landed). Settle it: invalidating our
     * own transaction succeeds only if no commit value is there; otherwise the commit happened.
     */
    private boolean resolveOwnCommitAfterError(Transaction tx, IOException cause) throws IOException {
        try {
            if (commitTable.tryInvalidate(tx.txId())) {
                return false;
            }
            return commitTable.lookup(tx.txId()).state() == CommitTable.Entry.State.COMMITTED;
        } catch (IOException again) {
            again.addSuppressed(cause);
            throw new IOException("Outcome of transaction " + tx.txId() + " is unknown: the commit table is"
                    + " unreachable. Readers will settle it (commit or force-abort) when the table is back.", again);
        }
    }

    /** Rolls back: removes the tentative cells. Tolerates transactions that already finished. */
    public void abort(Transaction tx) throws IOException {
        if (!tx.isRunning()) {
            return;
        }
        tx.markAborted();
        postCommitter.removeTentativeCells(tx.writeSet().cells());
    }

    private void rollbackQuietly(Transaction tx) {
        try {
            abort(tx);
        } catch (IOException e) {
            LOG.warn("Rollback of {} left tentative cells behind; readers treat them as aborted and the cleaner"
                    + " removes them", tx, e);
        }
    }

    /** A fence on a table (CREATE INDEX): transactions that started before it and write the table abort. */
    public long fence(TableName table) throws IOException {
        return tm.get().fence(WriteSetHashing.tableId(table.getNameAsString().getBytes(StandardCharsets.UTF_8)));
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

    @Override
    public void close() {
        if (cleanerSchedule != null) {
            cleanerSchedule.shutdownNow();
        }
        postCommitter.close();
    }
}
