package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * After the commit point: write a commit cell beside every tentative cell, then delete the commit-table entry
 * (only once every commit cell is durable; otherwise the entry stays and readers keep resolving through it).
 * Also the inverse for aborts: remove every tentative cell.
 * Runs inline (SYNC) or on a background thread (ASYNC, the default: commit returns at the commit point).
 * Its commit-cell writing is the {@link CommitCellWriter} the {@link CommitTableCleaner} uses too.
 */
public final class PostCommitter implements CommitCellWriter, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(PostCommitter.class);

    private final Connection connection;
    private final CommitTable commitTable;
    private final ExecutorService async;
    private final TxnClientMetrics metrics;

    public PostCommitter(Connection connection, CommitTable commitTable, TxnClientConfig.PostCommitMode mode) {
        this(connection, commitTable, mode, TxnClientMetrics.process());
    }

    /** Counting the asynchronous backlog into {@code metrics}. */
    public PostCommitter(Connection connection, CommitTable commitTable, TxnClientConfig.PostCommitMode mode,
                         TxnClientMetrics metrics) {
        this.connection = connection;
        this.metrics = metrics;
        this.commitTable = commitTable;
        this.async = mode == TxnClientConfig.PostCommitMode.ASYNC
                ? Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "phoenix-txn-postcommit");
                    t.setDaemon(true);
                    return t;
                })
                : null;
    }

    /** Marks the transaction's cells committed and retires its commit-table entry. */
    public void postCommit(long txId, long commitTs, Map<TableName, List<WrittenCell>> cells, boolean sync)
            throws IOException {
        if (async == null || sync) {
            complete(txId, commitTs, cells);
            return;
        }
        metrics.postCommitQueued();
        try {
            async.execute(() -> {
                boolean failed = true;
                try {
                    complete(txId, commitTs, cells);
                    failed = false;
                } catch (IOException | RuntimeException e) {
                    // Safe to leave: the commit-table entry stays and readers resolve through it; the cleaner
                    // finishes.
                    LOG.warn("Post-commit of transaction {} failed; its commit-table entry stays for readers", txId, e);
                } finally {
                    metrics.postCommitDone(failed);
                }
            });
        } catch (RuntimeException e) {
            metrics.postCommitDone(true);
            throw e;
        }
    }

    private void complete(long txId, long commitTs, Map<TableName, List<WrittenCell>> cells) throws IOException {
        for (Map.Entry<TableName, List<WrittenCell>> table : cells.entrySet()) {
            writeCommitCells(table.getKey(), commitTs, table.getValue());
        }
        commitTable.delete(txId);
    }

    /**
     * True if the first written cell of some table has its commit cell: the transaction's post-commit ran (the
     * cleaner completes post-commits all at once and only then removes the entry). Dropped tables are skipped.
     */
    public boolean anyCommitCellWritten(Map<TableName, List<WrittenCell>> cells) throws IOException {
        for (Map.Entry<TableName, List<WrittenCell>> table : cells.entrySet()) {
            if (table.getValue().isEmpty()) {
                continue;
            }
            WrittenCell cell = table.getValue().get(0);
            Get get = new Get(cell.row()).addColumn(cell.family(), OnDiskLayout.commitQualifier(cell.qualifier()))
                    .setTimestamp(cell.version());
            try (Table t = connection.getTable(table.getKey())) {
                if (!t.get(get).isEmpty()) {
                    return true;
                }
            } catch (TableNotFoundException e) {
                // dropped: nothing of it can tell, and nothing of it is left to lose
            }
        }
        return false;
    }

    @Override
    public void writeCommitCells(TableName table, long commitTs, List<WrittenCell> cells) throws IOException {
        byte[] value = OnDiskLayout.encodeCommitTimestamp(commitTs);
        Map<byte[], Put> byRow = new TreeMap<>(Bytes.BYTES_COMPARATOR);
        for (WrittenCell cell : cells) {
            // SYNC_WAL whatever the table says: the commit-table entry is deleted once these puts return, so a
            // commit cell lost to a skipped or deferred WAL write would turn committed data into aborted data.
            byRow.computeIfAbsent(cell.row(), row -> new Put(row).setDurability(Durability.SYNC_WAL))
                    .addColumn(cell.family(),
                    OnDiskLayout.commitQualifier(cell.qualifier()), cell.version(), value);
        }
        try (Table t = connection.getTable(table)) {
            t.put(new ArrayList<>(byRow.values()));
        } catch (IOException e) {
            throw droppedOr(table, e);
        }
    }

    /**
     * A failed write to a table that no longer exists becomes {@link TableNotFoundException}: HBase reports it as a
     * batch error whose cause is buried, and a table merely unavailable must not pass for dropped.
     */
    private IOException droppedOr(TableName table, IOException failure) {
        try (Admin admin = connection.getAdmin()) {
            if (!admin.tableExists(table)) {
                TableNotFoundException dropped = new TableNotFoundException(table);
                dropped.addSuppressed(failure);
                return dropped;
            }
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
        return failure;
    }

    /** Removes every tentative cell of an aborted transaction (exact versions; nothing else is touched). */
    public void removeTentativeCells(Map<TableName, List<WrittenCell>> cells) throws IOException {
        for (Map.Entry<TableName, List<WrittenCell>> table : cells.entrySet()) {
            Map<byte[], Delete> byRow = new TreeMap<>(Bytes.BYTES_COMPARATOR);
            for (WrittenCell cell : table.getValue()) {
                byRow.computeIfAbsent(cell.row(), Delete::new).addColumn(cell.family(), cell.qualifier(),
                        cell.version());
            }
            try (Table t = connection.getTable(table.getKey())) {
                t.delete(new ArrayList<>(byRow.values()));
            }
        }
    }

    /** Waits for queued post-commits (tests and orderly shutdown). */
    public void drain(long timeout, TimeUnit unit) throws InterruptedException {
        if (async != null) {
            try {
                async.submit(() -> { }).get(timeout, unit);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("Post-commit queue did not drain in " + timeout + " " + unit, e);
            }
        }
    }

    @Override
    public void close() {
        if (async != null) {
            async.shutdown();
            try {
                if (!async.awaitTermination(30, TimeUnit.SECONDS)) {
                    LOG.warn("Post-commits still running after 30 s; their commit-table entries keep them readable");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
