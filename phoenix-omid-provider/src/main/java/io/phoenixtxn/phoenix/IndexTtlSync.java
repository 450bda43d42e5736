package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.util.PhoenixRuntime;
import org.apache.phoenix.util.SchemaUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Gives a transactional table's global indexes the table's TTL. Phoenix moves a transactional table's TTL into the
 * family attribute {@code dataset.table.ttl}, which our readers and GC apply; it copies it to index tables only when a
 * table turns transactional, not on CREATE INDEX. An index row carries its data row's commit timestamp, so with the
 * same TTL it expires exactly when its data row does; without it an index-only query would keep returning rows whose
 * data expired. Run before an index is populated (at its write fence), so no reader of the index sees it without the
 * TTL once it is active.
 */
final class IndexTtlSync {
    private static final Logger LOG = LoggerFactory.getLogger(IndexTtlSync.class);

    private IndexTtlSync() {
    }

    /**
     * @param dataTable as Phoenix passes it to the fence, which may have been resolved before the new index was added;
     *                  it is resolved again here so its index list includes the index being built
     */
    static void sync(PhoenixConnection connection, Admin admin, PTable dataTable) throws IOException, SQLException {
        dataTable = PhoenixRuntime.getTableNoCache(connection, dataTable.getName().getString());
        TableDescriptor data = admin.getDescriptor(TableName.valueOf(dataTable.getPhysicalName().getBytes()));
        ColumnFamilyDescriptor emptyFamily = data.getColumnFamily(SchemaUtil.getEmptyColumnFamily(dataTable));
        String ttl = emptyFamily == null ? null : emptyFamily.getValue(PhoenixTransactionContext.PROPERTY_TTL);
        for (PTable index : dataTable.getIndexes()) {
            if (index.getIndexType() == PTable.IndexType.LOCAL || index.getType() != PTableType.INDEX) {
                continue; // local indexes live in the data table's regions (and are refused on transactional tables)
            }
            TableName indexName = TableName.valueOf(index.getPhysicalName().getBytes());
            TableDescriptor indexDescriptor;
            try {
                indexDescriptor = admin.getDescriptor(indexName);
            } catch (TableNotFoundException e) {
                continue; // a view index shares its physical table; nothing of its own to sync
            }
            for (ColumnFamilyDescriptor family : indexDescriptor.getColumnFamilies()) {
                if (!Objects.equals(ttl, family.getValue(PhoenixTransactionContext.PROPERTY_TTL))) {
                    LOG.info("Index {} family {}: TTL {} -> {} (the data table's)", indexName,
                            family.getNameAsString(), family.getValue(PhoenixTransactionContext.PROPERTY_TTL), ttl);
                    admin.modifyColumnFamily(indexName, ColumnFamilyDescriptorBuilder.newBuilder(family)
                            .setValue(PhoenixTransactionContext.PROPERTY_TTL, ttl).build());
                }
            }
        }
    }
}
