package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;

import java.io.IOException;
import java.util.List;

/**
 * Writes the commit cells (Omid's shadow cells) of one committed transaction into one table: after a commit point,
 * by the committing client, or by the {@link CommitTableCleaner} for a client that died. Idempotent. A seam, so the
 * cleaner can be tested without HBase; {@link PostCommitter} is the real one.
 */
public interface CommitCellWriter {

    /**
     * Writes a commit cell with {@code commitTs} beside each of {@code cells} in {@code table}.
     *
     * @throws TableNotFoundException when the table does not exist any more: it was dropped, and the transaction's
     *                                cells went with it
     */
    void writeCommitCells(TableName table, long commitTs, List<WrittenCell> cells) throws IOException;
}
