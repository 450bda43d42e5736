package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PName;
import org.apache.phoenix.schema.PTable;

import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A read of a table that another client dropped after this transaction resolved it. Inside a transaction Phoenix
 * resolves metadata as of the transaction's start, so a transaction that began before a DROP INDEX keeps planning
 * queries on the index, whose HBase table is gone: Phoenix itself forces the failure, and only a new transaction
 * (which resolves the table without the index) can read. The failure is therefore reported as what an application
 * already retries, SQL error 523 (a conflict, here with DDL), naming the table and why, instead of an HBase
 * TableNotFoundException wrapped in a PhoenixIOException. Phoenix turns the message back into the SQL error
 * (ClientUtil.parseServerException reads the root cause's "ERROR 523 (...)" text), so the exception has no cause.
 *
 * <p>The retry must not plan on the dropped table again: the connection service's metadata cache still lists the
 * index on its data table, and the server answers a resolution of the data table with "unchanged" (DROP INDEX does
 * not change the data table's timestamp), so every retry through that service compiled against the index and failed
 * with TABLE_UNDEFINED (1012). So the dropped table is removed from the cache of the connection that read it, and from
 * its data table's index list there ({@code PhoenixConnection.removeTable}, what Phoenix does for its own DROP).
 */
final class DroppedTableReads {
    private static final Logger LOG = LoggerFactory.getLogger(DroppedTableReads.class);

    private DroppedTableReads() {
    }

    /**
     * {@code failure}, or a retryable 523 when it says that {@code read} no longer exists (or is disabled); then
     * {@code metadata}'s cache forgets the table (null: no connection to tell).
     */
    static IOException translate(TableName read, IOException failure, PhoenixConnection metadata) {
        if (!DroppedIndexWrites.tableGone(failure)) {
            return failure;
        }
        LOG.debug("Read of {} failed: the table is gone", read, failure);
        forget(metadata, read);
        String message = new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION)
                .setMessage("Table " + read + " was dropped or disabled after this transaction resolved it (DROP INDEX"
                        + " or DROP TABLE by another client); roll back and retry the transaction, which then resolves"
                        + " the current schema")
                .build().buildException().getMessage();
        return new DoNotRetryIOException(message);
    }

    /** Removes the table that is gone from the connection service's cache, and from its data table's indexes. */
    static void forget(PhoenixConnection metadata, TableName gone) {
        if (metadata == null) {
            return;
        }
        String physical = gone.getNameAsString().replace(':', '.');
        try {
            List<PName> tenants = new ArrayList<>(2);
            tenants.add(metadata.getTenantId());
            if (metadata.getTenantId() != null) {
                tenants.add(null);
            }
            for (PName tenant : tenants) {
                List<PTable> cached = new ArrayList<>();
                for (PTable table : metadata.getMetaDataCache()) {
                    cached.add(table);
                }
                for (PTable table : cached) {
                    for (PTable index : table.getIndexes()) {
                        if (physical.equals(index.getPhysicalName().getString())
                                || physical.equals(index.getName().getString())) {
                            LOG.info("{} is gone: removed from {}'s indexes in this connection service's cache",
                                    index.getName(), table.getName());
                            metadata.removeTable(tenant, index.getName().getString(), table.getName().getString(),
                                    HConstants.LATEST_TIMESTAMP);
                        }
                    }
                }
                metadata.removeTable(tenant, physical, null, HConstants.LATEST_TIMESTAMP);
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Could not remove {} from the metadata cache; a retry may plan on it again", gone, e);
        }
    }
}
