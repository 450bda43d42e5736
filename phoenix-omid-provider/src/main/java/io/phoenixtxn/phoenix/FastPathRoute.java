package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.WriteMode;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.transaction.TransactionFactory;

import java.util.List;

/**
 * Which Phoenix writes may take the fast path (design.md sec. 4.11, Phoenix mapping): one row (one Put or one
 * Delete) of a transactional data table (not a view, not an index) that has no index of any kind in the metadata the
 * write was built from, and whose fast-path switch this client believes on. Metadata can be stale: the region server
 * refuses a fast-path write to a table whose switch CREATE INDEX turned off (FENCED), so a stale "no index" never
 * leaves an index behind.
 */
final class FastPathRoute {
    private FastPathRoute() {
    }

    /** True if rows of {@code table} may be written on the fast path (an unknown switch is off). */
    static boolean eligible(PTable table, FastPathSwitchCache switches) {
        return table != null && table.isTransactional()
                && table.getTransactionProvider() == TransactionFactory.Provider.OMID
                && table.getType() == PTableType.TABLE
                && table.getIndexes().isEmpty()
                && switches.isEnabled(physicalName(table));
    }

    static TableName physicalName(PTable table) {
        return TableName.valueOf(table.getPhysicalName().getBytes());
    }

    /** The single row write of {@code actions}, or null if they are not exactly one Put or one Delete. */
    static Mutation singleRowWrite(List<?> actions) {
        if (actions.size() != 1) {
            return null;
        }
        Object only = actions.get(0);
        return only instanceof Put || only instanceof Delete ? (Mutation) only : null;
    }

    /** One row write kept back until commit, when it becomes a bwc (or a regular transaction's write). */
    record StashedWrite(TableName table, Mutation mutation, WriteMode mode) {
    }
}
