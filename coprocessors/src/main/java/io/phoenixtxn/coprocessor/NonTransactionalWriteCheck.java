package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.fastpath.FastPathWire;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;

import java.io.IOException;
import java.util.List;

/**
 * Refuses non-transactional writes to a table that became transactional ({@link ConvertedTable}). After the switch
 * a client whose cached metadata still says "not transactional" writes plain cells, stamped with the region server's
 * time or its own milliseconds: by the "committed below" rule ({@link PreTransactionalCells}) such a cell would read
 * as committed before every transaction, appearing in the snapshots of transactions already running. So every Put
 * or Delete cell of such a table at HBase's LATEST_TIMESTAMP (the server assigns milliseconds) or below the rule's
 * bound fails the whole batch, before anything is applied; a transactional write (every cell at a TM timestamp)
 * passes. The refusal reads as Phoenix's SQL error 523 (Phoenix rebuilds it from the "ERROR 523 (42900)" text),
 * which applications already retry: a re-run statement resolves the table again and writes it transactionally.
 * HBase's own read-modify-writes (Append, an Increment that is not a fast-path carrier) are refused alike, and so is
 * a Delete of a column's newest version without a timestamp, before HBase picks that version
 * ({@link #verifyLatestVersionDelete}); a fast-path carrier passes (it stamps its own versions, above the bound).
 */
final class NonTransactionalWriteCheck {
    private final PreTransactionalCells rule;
    private final TableName table;

    NonTransactionalWriteCheck(PreTransactionalCells rule, TableName table) {
        this.rule = rule;
        this.table = table;
    }

    void verify(MiniBatchOperationInProgress<Mutation> batch) throws IOException {
        if (!rule.converted()) {
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            verify(batch.getOperation(i));
        }
    }

    void verify(Mutation mutation) throws IOException {
        if (!rule.converted()) {
            return;
        }
        if (mutation instanceof Append || mutation instanceof Increment increment
                && FastPathWire.requestOf(increment) == null) {
            // HBase's own read-modify-writes: versions at the server's time, outside any transaction. A fast-path
            // carrier is an increment too, but writes its own versions (above the bound) in preBatchMutate.
            throw refused(HConstants.LATEST_TIMESTAMP);
        }
        if (!(mutation instanceof Put || mutation instanceof Delete)) {
            return;
        }
        if (mutation.getFamilyCellMap().isEmpty()) {
            throw refused(mutation.getTimestamp()); // a Delete of the whole row, at the server's time or its own
        }
        for (List<Cell> cells : mutation.getFamilyCellMap().values()) {
            for (Cell cell : cells) {
                long version = cell.getTimestamp();
                if (version == HConstants.LATEST_TIMESTAMP || rule.refusesWriteAt(version)) {
                    throw refused(version);
                }
            }
        }
    }

    /**
     * prePrepareTimeStampForDeleteVersion: a Delete.addColumn without a timestamp. HBase gives it the column's newest
     * version before preBatchMutate, which may be a transaction's (above the bound): it would pass {@link #verify}
     * and delete a committed transactional version outside any transaction. Refused here, before HBase picks.
     */
    void verifyLatestVersionDelete(Cell marker) throws IOException {
        if (rule.converted()) {
            throw refused(marker.getTimestamp());
        }
    }

    private DoNotRetryIOException refused(long version) {
        return new DoNotRetryIOException("ERROR 523 (42900): Table " + table + " was made transactional (ALTER TABLE"
                + " ... SET TRANSACTIONAL=true): this non-transactional write (cell timestamp "
                + (version == HConstants.LATEST_TIMESTAMP ? "assigned by the server" : Long.toString(version))
                + ") was refused and nothing of it was applied. The client's table metadata predates the switch;"
                + " re-run the statement (Phoenix resolves the table again and writes it in a transaction; with"
                + " UPDATE_CACHE_FREQUENCY set, once that period has passed)");
    }
}
