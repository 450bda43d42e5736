package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 */
public final class CommitTableCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(CommitTableCleaner.class);

    private final CommitTable commitTable;
    private final CommitCellWriter commitCells;
    private final AtomicLong failures = new AtomicLong();

    public CommitTableCleaner(CommitTable commitTable, CommitCellWriter commitCells) {
        this.commitTable = commitTable;
        this.commitCells = commitCells;
    }

    /**
     * One pass over the commit table.
     *
     * @param olderThan only entries of transactions that started before this timestamp (the grace period keeps
     *                  the cleaner away from commits whose own post-commit is still running)
     * @return how many entries were completed and removed
     */
    public int cleanOnce(long olderThan) throws IOException {
        int completed = 0;
        try (Stream<CommitTable.CommittedEntry> entries = commitTable.committedBefore(olderThan)) {
            Iterator<CommitTable.CommittedEntry> it = entries.iterator();
            while (it.hasNext()) {
                CommitTable.CommittedEntry entry = it.next();
                if (entry.recoveryRecord() == null) {
                    continue;
                }
                Map<TableName, List<WrittenCell>> cells = WrittenCellsCodec.decode(entry.txId(), entry.recoveryRecord());
                for (Map.Entry<TableName, List<WrittenCell>> table : cells.entrySet()) {
                    commitCells.writeCommitCells(table.getKey(), entry.commitTs(), table.getValue());
                }
                commitTable.delete(entry.txId());
                completed++;
                LOG.info("Completed the post-commit of transaction {} ({}) left by a client that stopped after its"
                        + " commit point", entry.txId(), TimestampLayout.describe(entry.txId()));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return completed;
    }

    /** Entries this cleaner could not complete, over all passes (each pass that fails on an entry counts it). */
    public long failures() {
        return failures.get();
    }
}
