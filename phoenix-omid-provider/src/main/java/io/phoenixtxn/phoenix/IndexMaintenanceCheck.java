package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.WrittenCell;
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
     * @param cells      the transaction's written cells by physical table
     */
    static Optional<String> skippedIndex(Map<TableName, PTable> sentTables,
                                         Map<TableName, List<WrittenCell>> cells) {
        for (Map.Entry<TableName, PTable> sent : sentTables.entrySet()) {
            if (!deletesRows(cells.get(sent.getKey()))) {
                continue;
            }
            for (PTable index : sent.getValue().getIndexes()) {
                if (index.getIndexType() == PTable.IndexType.LOCAL || !isMaintained(index.getIndexState())) {
                    continue;
                }
                TableName physical = TableName.valueOf(index.getPhysicalName().getBytes());
                List<WrittenCell> indexCells = cells.get(physical);
                if (indexCells == null || indexCells.isEmpty()) {
                    return Optional.of(index.getName().getString() + " (" + sent.getValue().getName().getString()
                            + ")");
                }
            }
        }
        return Optional.empty();
    }

    /** A row delete is a family delete marker: a cell with an empty qualifier. */
    private static boolean deletesRows(List<WrittenCell> cells) {
        if (cells == null) {
            return false;
        }
        for (WrittenCell cell : cells) {
            if (cell.qualifier().length == 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean isMaintained(PIndexState state) {
        return state == PIndexState.ACTIVE || state == PIndexState.BUILDING;
    }
}
