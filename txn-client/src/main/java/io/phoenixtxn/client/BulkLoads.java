package io.phoenixtxn.client;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Bulk loads: transactions whose cells reach the tables as files moved into the stores (HBase's bulk load), not as
 * writes through this client. Every cell of a load carries the load's start timestamp as its version, without a
 * commit cell, so until the load commits its rows read as a pending writer's; the commit point is the load's
 * commit-table entry, as for any transaction (Omid LL), written once every file of every table landed.
 *
 * <ol>
 *   <li>{@link #begin}: the TM holds the tables (writers of them abort as fenced until the load ends);</li>
 *   <li>the caller writes and lands its files, every cell at {@link Transaction#txId()};</li>
 *   <li>{@link #commit}: the TM's decision (which also fences the tables at the commit timestamp), then the
 *       commit-table entry. It carries no recovery record, so the commit-table cleaner never removes it: the load's
 *       cells are not listed anywhere but in the tables;</li>
 *   <li>{@link #writeCommitCells}: a commit cell beside every cell of the load, then the entry goes. Until then
 *       readers resolve the load through its entry and heal what they read; a load whose tool died here stays
 *       committed through its entry.</li>
 * </ol>
 * A load that fails before its commit point is ended with {@link #abandon}: its landed cells read as an aborted
 * writer's, and compaction-time GC removes them.
 */
public final class BulkLoads {
    private static final Logger LOG = LoggerFactory.getLogger(BulkLoads.class);
    private static final int COMMIT_CELL_BATCH = 1_000;

    private final Connection connection;
    private final Supplier<TransactionManager> tm;
    private final CommitTable commitTable;
    private final CommitCellWriter commitCells;
    private final OpenTransactionTracker openTransactions;
    private final long commitPointTimeoutNanos;

    BulkLoads(Connection connection, Supplier<TransactionManager> tm, CommitTable commitTable,
              CommitCellWriter commitCells, OpenTransactionTracker openTransactions, long commitPointTimeoutMs) {
        this.connection = connection;
        this.tm = tm;
        this.commitTable = commitTable;
        this.commitCells = commitCells;
        this.openTransactions = openTransactions;
        this.commitPointTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commitPointTimeoutMs);
    }

    /** Begins a load into {@code tables} (a table and its indexes); renewed at the TM like any open transaction. */
    public Transaction begin(Collection<TableName> tables) throws IOException {
        return openTransactions.track(Transaction.begun(tm.get().beginBulkLoad(tableIds(tables))));
    }

    /**
     * Commits a load whose files all landed.
     *
     * @return the commit timestamp
     * @throws TxnAbortedException when the TM aborted it (e.g. an index was created on one of its tables
     *                             meanwhile) or a reader invalidated it: nothing of it is visible
     * @throws TxnInDoubtException when the commit-table write failed and its outcome cannot be settled
     */
    public long commit(Transaction load, Collection<TableName> tables) throws IOException {
        if (!load.startCommitting()) {
            throw new IllegalStateException("Bulk load " + load.txId() + " is already " + load.status());
        }
        try {
            if (load.isExpired()) {
                load.markAborted();
                throw new TxnAbortedException(load.txId(), AbortReason.EXPIRED);
            }
            CommitDecision decision;
            try {
                long[] ids = tableIds(tables);
                long[] marked = new long[ids.length + 1];
                marked[0] = TransactionManager.BULK_LOAD_COMMIT; // a TM that no longer holds the load refuses it
                System.arraycopy(ids, 0, marked, 1, ids.length);
                decision = tm.get().commit(load.txId(), load.txId(), new long[0], marked);
            } catch (TmException | RuntimeException e) {
                load.markAborted();
                throw new TmException("Bulk load " + load.txId() + " not committed: the transaction manager did not"
                        + " answer (" + e.getMessage() + "); its files read as an aborted writer's", e);
            }
            long decidedAt = System.nanoTime();
            if (!decision.isCommitted()) {
                load.markAborted();
                throw new TxnAbortedException(load.txId(), decision.abortReason());
            }
            long commitTs = decision.commitTimestamp();
            if (System.nanoTime() - decidedAt > commitPointTimeoutNanos) {
                // As for any transaction: past this the commit-point horizon may pass the load (a long pause here).
                load.markAborted();
                throw new TxnAbortedException(load.txId(), AbortReason.COMMIT_POINT_TOO_LATE);
            }
            if (!reachCommitPoint(load, commitTs)) {
                load.markAborted();
                throw new TxnAbortedException(load.txId(), AbortReason.INVALIDATED);
            }
            load.markCommitted(commitTs);
            return commitTs;
        } finally {
            openTransactions.ended(load);
        }
    }

    /**
     * The commit-table write; on an error whose outcome is unknown, settled by invalidating the load ourselves: that
     * fails only if the commit value is there. (No cleaner completes a load's entry, so an entry cannot have come
     * and gone meanwhile.)
     */
    private boolean reachCommitPoint(Transaction load, long commitTs) throws IOException {
        try {
            return commitTable.tryCommit(load.txId(), commitTs, null);
        } catch (IOException e) {
            try {
                return !commitTable.tryInvalidate(load.txId());
            } catch (IOException again) {
                again.addSuppressed(e);
                load.markInDoubt();
                throw new TxnInDoubtException(load.txId(), again);
            }
        }
    }

    /**
     * Writes a commit cell beside every cell the committed load {@code txId} left in {@code tables}, then removes
     * its commit-table entry. Idempotent; a failure leaves the entry, through which readers keep seeing the load.
     *
     * @return how many commit cells were written
     */
    public long writeCommitCells(long txId, long commitTs, Collection<TableName> tables) throws IOException {
        long written = 0;
        for (TableName table : tables) {
            written += writeCommitCells(table, txId, commitTs);
        }
        commitTable.delete(txId);
        return written;
    }

    private long writeCommitCells(TableName table, long txId, long commitTs) throws IOException {
        Scan scan = new Scan().setTimeRange(txId, txId + 1).setFilter(new KeyOnlyFilter()).setCaching(1_000)
                .setCacheBlocks(false);
        long written = 0;
        List<WrittenCell> batch = new ArrayList<>(COMMIT_CELL_BATCH);
        try (Table t = connection.getTable(table); ResultScanner scanner = t.getScanner(scan)) {
            for (Result result : scanner) {
                for (Cell cell : result.rawCells()) {
                    if (OnDiskLayout.isCommitCell(cell)) {
                        continue;
                    }
                    batch.add(new WrittenCell(CellUtil.cloneRow(cell), CellUtil.cloneFamily(cell),
                            CellUtil.cloneQualifier(cell), cell.getTimestamp()));
                }
                if (batch.size() >= COMMIT_CELL_BATCH) {
                    commitCells.writeCommitCells(table, commitTs, batch);
                    written += batch.size();
                    batch = new ArrayList<>(COMMIT_CELL_BATCH);
                }
            }
        }
        if (!batch.isEmpty()) {
            commitCells.writeCommitCells(table, commitTs, batch);
            written += batch.size();
        }
        LOG.info("Bulk load {}: {} commit cells written in {}", txId, written, table);
        return written;
    }

    /**
     * Ends a load that will not commit (its tool failed before the commit point): the TM releases its tables, and
     * its landed cells read as an aborted writer's. Nothing is removed here: the files' cells are not listed.
     */
    public void abandon(Transaction load) {
        if (load.abortIfRunning()) {
            openTransactions.ended(load);
        }
    }

    private static long[] tableIds(Collection<TableName> tables) {
        return tables.stream().mapToLong(t -> WriteSetHashing.tableId(t.getNameAsString()
                .getBytes(StandardCharsets.UTF_8))).toArray();
    }
}
