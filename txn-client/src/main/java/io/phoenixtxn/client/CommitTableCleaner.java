package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Finishes what crashed clients left after their commit point (Apache Omid leaves this open): a commit-table
 * entry older than a grace period whose recovery record says where the cells are gets its commit cells written and
 * is then deleted. Idempotent, so any number of clients may run it at once. Entries without a record (written by
 * Omid, or too large to record) stay, and readers keep resolving through them; invalid markers stay until the
 * invalidated writer's cells are gone.
 */
public final class CommitTableCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(CommitTableCleaner.class);

    private final Connection connection;
    private final TableName commitTableName;
    private final PostCommitter postCommitter;

    public CommitTableCleaner(Connection connection, TableName commitTableName, PostCommitter postCommitter) {
        this.connection = connection;
        this.commitTableName = commitTableName;
        this.postCommitter = postCommitter;
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
        Scan scan = new Scan().addFamily(HBaseCommitTable.FAMILY);
        try (Table table = connection.getTable(commitTableName); ResultScanner rows = table.getScanner(scan)) {
            for (Result row : rows) {
                if (row.getRow().length != 9) {
                    continue; // the low-water-mark row and anything else that is not an entry
                }
                long txId = HBaseCommitTable.txIdOfRowKey(row.getRow());
                byte[] commit = row.getValue(HBaseCommitTable.FAMILY, HBaseCommitTable.COMMIT_QUALIFIER);
                byte[] record = row.getValue(HBaseCommitTable.FAMILY, HBaseCommitTable.RECOVERY_QUALIFIER);
                if (txId >= olderThan || commit == null || record == null
                        || row.containsColumn(HBaseCommitTable.FAMILY, HBaseCommitTable.INVALID_QUALIFIER)) {
                    continue;
                }
                long commitTs = HBaseCommitTable.decodeCommitTimestamp(txId, commit);
                Map<TableName, List<WrittenCell>> cells = WrittenCellsCodec.decode(txId, record);
                postCommitter.writeCommitCells(txId, commitTs, cells);
                completed++;
                LOG.info("Completed the post-commit of transaction {} ({}) left by a client that stopped after its"
                        + " commit point", txId, TimestampLayout.describe(txId));
            }
        }
        return completed;
    }
}
