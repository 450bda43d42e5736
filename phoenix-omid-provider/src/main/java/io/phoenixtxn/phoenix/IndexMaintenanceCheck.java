package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.WriteSet;
import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.schema.PIndexState;
import org.apache.phoenix.schema.PTable;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Catches row deletes that skipped an index. Phoenix computes a DELETE's index deletes when the statement runs, from
 * the connection service's cached table; a client whose cache predates a new index (another JVM, while CREATE INDEX
 * runs) deletes data rows without touching the new index, and neither Phoenix's commit (which re-resolves the table)
 * nor its replay recomputes them, so the index would keep entries for deleted rows. At commit, for every data table
 * whose rows this transaction deleted, each index the table has as sent (Phoenix re-resolves it then) that is being
 * built or active must have received writes from this transaction too.
 */
final class IndexMaintenanceCheck {
    private IndexMaintenanceCheck() {
    }

    /**
     * The first index of a table that this transaction deleted rows of but did not write, as "index (table)".
     *
     * @param sentTables data tables as Phoenix sent their mutations, by physical name
     * @param writes     the transaction's write set
     */
    static Optional<String> skippedIndex(Map<TableName, PTable> sentTables, WriteSet writes) {
        for (Map.Entry<TableName, PTable> sent : sentTables.entrySet()) {
            List<PTable> indexes = sent.getValue().getIndexes();
            if (indexes.isEmpty() || !writes.deletesRowsOf(sent.getKey())) {
                continue;
            }
            for (PTable index : indexes) {
                if (index.getIndexType() == PTable.IndexType.LOCAL || !isMaintained(index.getIndexState())) {
                    continue;
                }
                if (!writes.writes(TableName.valueOf(index.getPhysicalName().getBytes()))) {
                    return Optional.of(index.getName().getString() + " (" + sent.getValue().getName().getString()
                            + ")");
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isMaintained(PIndexState state) {
        return state == PIndexState.ACTIVE || state == PIndexState.BUILDING;
    }
}
