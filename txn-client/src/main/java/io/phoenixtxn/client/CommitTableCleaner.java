package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Finishes what crashed clients left after their commit point (Apache Omid leaves this open): a commit-table
 * entry older than a grace period whose recovery record says where the cells are gets its commit cells written and
 * is then deleted. Idempotent, so any number of clients may run it at once. Entries without a record (written by
 * Omid, or too large to record) stay, and readers keep resolving through them; invalid markers stay until the
 * invalidated writer's cells are gone.
 *
 * <p>Each entry is completed on its own: one that fails (a table unavailable, a corrupt record) is logged, counted
 * and left for readers and the next pass, and the pass goes on. A table dropped since the commit took the
 * transaction's cells in it along, so there is nothing left to mark there: the entry is complete once every table
 * that still exists has its commit cells. The entry is deleted only then, never before a live table's cells are
 * durable. Works through the {@link CommitTable} and {@link CommitCellWriter} seams only.
 */
public final class CommitTableCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(CommitTableCleaner.class);

    private final CommitTable commitTable;
    private final CommitCellWriter commitCells;
    private final AtomicLong failures = new AtomicLong();

    private final TxnClientMetrics metrics;

    public CommitTableCleaner(CommitTable commitTable, CommitCellWriter commitCells) {
        this(commitTable, commitCells, TxnClientMetrics.process());
    }

    /** Counting its passes and what they completed into {@code metrics}. */
    public CommitTableCleaner(CommitTable commitTable, CommitCellWriter commitCells, TxnClientMetrics metrics) {
        this.metrics = metrics;
        this.commitTable = commitTable;
        this.commitCells = commitCells;
    }

    /**
     * One pass over the commit table.
     *
     * @param olderThan only entries of transactions that started before this timestamp (the grace period keeps
     *                  the cleaner away from commits whose own post-commit is still running)
     * @return how many entries were completed and removed
     * @throws IOException when the commit table cannot be read (a failure on one entry does not end the pass)
     */
    public int cleanOnce(long olderThan) throws IOException {
        int completed = 0;
        int failed = 0;
        try (Stream<CommitTable.CommittedEntry> entries = commitTable.committedBefore(olderThan)) {
            Iterator<CommitTable.CommittedEntry> it = entries.iterator();
            while (it.hasNext()) {
                CommitTable.CommittedEntry entry = it.next();
                if (entry.recoveryRecord() == null) {
                    continue;
                }
                if (complete(entry)) {
                    completed++;
                } else {
                    failed++;
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            metrics.cleanerRan(completed, failed);
        }
        return completed;
    }

    /** Entries this cleaner could not complete, over all passes (an entry that fails in two passes counts twice). */
    public long failures() {
        return failures.get();
    }

    /** Completes one entry; false (logged and counted) when it stays for the next pass. */
    private boolean complete(CommitTable.CommittedEntry entry) {
        try {
            Map<TableName, List<WrittenCell>> cells = WrittenCellsCodec.decode(entry.txId(), entry.recoveryRecord());
            List<TableName> dropped = new ArrayList<>();
            for (Map.Entry<TableName, List<WrittenCell>> table : cells.entrySet()) {
                try {
                    commitCells.writeCommitCells(table.getKey(), entry.commitTs(), table.getValue());
                } catch (TableNotFoundException e) {
                    dropped.add(table.getKey());
                }
            }
            commitTable.delete(entry.txId());
            LOG.info("Completed the post-commit of transaction {} ({}) left by a client that stopped after its"
                    + " commit point{}", entry.txId(), TimestampLayout.describe(entry.txId()),
                    dropped.isEmpty() ? "" : "; tables dropped since, with their cells: " + dropped);
            return true;
        } catch (IOException | RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("Could not complete the post-commit of transaction {} ({}); its commit-table entry stays for"
                    + " readers and the next pass retries it", entry.txId(), TimestampLayout.describe(entry.txId()), e);
            return false;
        }
    }
}
