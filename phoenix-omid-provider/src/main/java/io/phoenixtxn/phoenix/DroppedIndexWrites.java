package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.phoenix.coprocessorclient.MetaDataProtocol;
import org.apache.phoenix.coprocessorclient.MetaDataProtocol.MetaDataMutationResult;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;

/**
 * Index maintenance that reaches an index another client dropped. Phoenix computes a transaction's index rows at
 * commit from the data table as its statements resolved it; when another client (another connection service, another
 * JVM) dropped an index meanwhile, those rows go to a table that is disabled or deleted, and the whole commit would
 * fail. A write is treated as belonging to a dropped index only when the HBase table is gone AND the index itself,
 * looked up on the server at the latest timestamp, no longer exists: then no reader can ever read those rows, and
 * dropping them loses nothing. Anything else keeps failing as before. (If an index of the
 * same name is created again, its write fence aborts this transaction at commit, as for any transaction older than an
 * index.)
 */
final class DroppedIndexWrites {
    private static final Logger LOG = LoggerFactory.getLogger(DroppedIndexWrites.class);

    private DroppedIndexWrites() {
    }

    /** True when {@code failure} says that the table written to does not exist or is disabled. */
    static boolean tableGone(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TableNotFoundException || t instanceof TableNotEnabledException) {
                return true;
            }
            if (t instanceof RetriesExhaustedWithDetailsException) {
                RetriesExhaustedWithDetailsException details = (RetriesExhaustedWithDetailsException) t;
                if (details.getNumExceptions() > 0 && details.getCauses().stream().allMatch(c ->
                        c instanceof TableNotFoundException || c instanceof TableNotEnabledException)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code written}, an index table of {@code dataTable} as the statement resolved it, has been dropped:
     * it is not the data table and the data table's current metadata lists no index on it.
     */
    static boolean isDroppedIndex(PhoenixConnection connection, PTable dataTable, TableName written,
                                  IOException failure) {
        if (connection == null || dataTable == null || !tableGone(failure)
                || written.getNameAsString().equals(dataTable.getPhysicalName().getString())) {
            return false;
        }
        PTable index = null;
        for (PTable candidate : dataTable.getIndexes()) {
            if (written.getNameAsString().equals(candidate.getPhysicalName().getString())) {
                index = candidate;
            }
        }
        if (index == null) {
            return false; // not an index of the table as the statement resolved it: not ours to judge
        }
        try {
            // The index's own metadata at the latest timestamp (not the transaction's: inside a transaction Phoenix
            // resolves metadata as of its start, when the index existed), asked of the server, not the cache.
            MetaDataMutationResult latest = connection.getQueryServices().getTable(connection.getTenantId(),
                    index.getSchemaName().getBytes(), index.getTableName().getBytes(), HConstants.LATEST_TIMESTAMP,
                    HConstants.LATEST_TIMESTAMP);
            if (latest.getMutationCode() != MetaDataProtocol.MutationCode.TABLE_NOT_FOUND) {
                return false; // the index still exists: the failure is real
            }
        } catch (SQLException e) {
            LOG.debug("Could not look up index {} of {} to check whether it was dropped", index.getName(),
                    dataTable.getName(), e);
            return false;
        }
        LOG.info("Index {} of {} was dropped by another client after this transaction's statements resolved the"
                + " table; its index rows are dropped with it", index.getName(), dataTable.getName());
        return true;
    }
}
