package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.jdbc.PhoenixDatabaseMetaData;
import org.apache.phoenix.schema.types.PBoolean;
import org.apache.phoenix.schema.types.PTinyint;
import org.apache.phoenix.transaction.TransactionFactory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The catalog invariant {@link CatalogProviderObserver} keeps (a header that says TRANSACTIONAL=true names its
 * provider), on Puts shaped as Phoenix's catalog writes, and its one-time installation on SYSTEM.CATALOG.
 */
class CatalogProviderObserverTest {
    private static final byte[] FAMILY = PhoenixDatabaseMetaData.TABLE_FAMILY_BYTES;
    private static final byte[] HEADER = Bytes.toBytes("\0S\0IDX");

    @Test
    void aTransactionalHeaderWithoutProviderGetsOmidAtItsTimestamp() {
        Put put = new Put(HEADER)
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TABLE_SEQ_NUM_BYTES, 77L, Bytes.toBytes(3L))
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 77L, PBoolean.INSTANCE.toBytes(true));
        assertTrue(CatalogProviderObserver.addMissingProvider(put));
        Cell provider = cell(put, PhoenixDatabaseMetaData.TRANSACTION_PROVIDER_BYTES);
        assertEquals(77L, provider.getTimestamp());
        assertEquals(TransactionFactory.Provider.OMID.getCode(), PTinyint.INSTANCE.getCodec().decodeByte(
                provider.getValueArray(), provider.getValueOffset(), org.apache.phoenix.schema.SortOrder.getDefault()));
        assertFalse(CatalogProviderObserver.addMissingProvider(put), "idempotent");
        assertEquals(3, put.getFamilyCellMap().get(FAMILY).size());
    }

    @Test
    void everyOtherPutIsLeftAlone() {
        Put named = new Put(HEADER)
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 5L, PBoolean.INSTANCE.toBytes(true))
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TRANSACTION_PROVIDER_BYTES, 5L,
                        PTinyint.INSTANCE.toBytes((byte) 1));
        assertFalse(CatalogProviderObserver.addMissingProvider(named), "a provider already named stays as named");
        Put notTransactional = new Put(HEADER)
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 5L, PBoolean.INSTANCE.toBytes(false));
        assertFalse(CatalogProviderObserver.addMissingProvider(notTransactional));
        Put column = new Put(Bytes.toBytes("\0S\0T\0V\0" + "0"))
                .addColumn(FAMILY, PhoenixDatabaseMetaData.DATA_TYPE_BYTES, 5L, Bytes.toBytes(12));
        assertFalse(CatalogProviderObserver.addMissingProvider(column));
        assertFalse(CatalogProviderObserver.addMissingProvider(new Put(HEADER)
                .addColumn(Bytes.toBytes("other"), PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 5L,
                        PBoolean.INSTANCE.toBytes(true))), "another family");
        assertNull(cell(notTransactional, PhoenixDatabaseMetaData.TRANSACTION_PROVIDER_BYTES));
    }

    /**
     * Converting a local index is refused before anything is written (the catalog batch fails as a whole, and
     * Phoenix's ALTER restores the descriptors). Unit-level only: creating a local index in the shared minicluster
     * deadlocks its single priority handler (Phoenix's createTable calls SYSTEM.SEQUENCE back on the same server).
     */
    @Test
    @SuppressWarnings("unchecked")
    void aLocalIndexHeaderWrittenTransactionalIsRefusedAndAGlobalOneIsNot() throws IOException {
        Put local = new Put(HEADER)
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 9L, PBoolean.INSTANCE.toBytes(true));
        org.apache.hadoop.hbase.coprocessor.ObserverContext<
                org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment> ctx =
                org.mockito.Mockito.mock(org.apache.hadoop.hbase.coprocessor.ObserverContext.class);
        org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment env =
                org.mockito.Mockito.mock(org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment.class);
        org.apache.hadoop.hbase.regionserver.Region region =
                org.mockito.Mockito.mock(org.apache.hadoop.hbase.regionserver.Region.class);
        org.mockito.Mockito.when(ctx.getEnvironment()).thenReturn(env);
        org.mockito.Mockito.when(env.getRegion()).thenReturn(region);
        org.mockito.Mockito.when(region.get(org.mockito.ArgumentMatchers.any(org.apache.hadoop.hbase.client.Get.class)))
                .thenReturn(indexType(org.apache.phoenix.schema.PTable.IndexType.LOCAL));
        CatalogProviderObserver observer = new CatalogProviderObserver();
        IOException refused = org.junit.jupiter.api.Assertions.assertThrows(
                org.apache.hadoop.hbase.DoNotRetryIOException.class, () -> observer.prePut(ctx, local, null));
        assertTrue(refused.getMessage().contains("local index cannot become transactional"), refused.getMessage());

        Put global = new Put(HEADER)
                .addColumn(FAMILY, PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 9L, PBoolean.INSTANCE.toBytes(true));
        org.mockito.Mockito.when(region.get(org.mockito.ArgumentMatchers.any(org.apache.hadoop.hbase.client.Get.class)))
                .thenReturn(indexType(org.apache.phoenix.schema.PTable.IndexType.GLOBAL));
        observer.prePut(ctx, global, null);
        assertTrue(cell(global, PhoenixDatabaseMetaData.TRANSACTION_PROVIDER_BYTES) != null);
    }

    private static org.apache.hadoop.hbase.client.Result indexType(org.apache.phoenix.schema.PTable.IndexType type) {
        return org.apache.hadoop.hbase.client.Result.create(List.of(org.apache.hadoop.hbase.CellUtil.createCell(HEADER,
                FAMILY, PhoenixDatabaseMetaData.INDEX_TYPE_BYTES, 1L,
                org.apache.hadoop.hbase.KeyValue.Type.Put.getCode(), new byte[] {type.getSerializedValue()})));
    }

    @Test
    void theObserverIsInstalledKeepingTheCatalogsCoprocessorsAndOnlyWhereItIsMissing() throws IOException {
        FakeCatalog catalog = new FakeCatalog(TableDescriptorBuilder.newBuilder(TableName.valueOf("SYSTEM.CATALOG"))
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
                .setCoprocessor("org.apache.phoenix.coprocessor.MetaDataEndpointImpl").build());
        assertTrue(CatalogObserverInstaller.ensure(catalog, 805306356));
        assertEquals(1, catalog.modifications.size());
        TableDescriptor installed = catalog.current;
        assertTrue(installed.hasCoprocessor(CatalogObserverInstaller.OBSERVER));
        assertTrue(installed.hasCoprocessor("org.apache.phoenix.coprocessor.MetaDataEndpointImpl"));
        assertFalse(CatalogObserverInstaller.ensure(catalog, 805306356), "a catalog that has it is not modified");
        assertEquals(1, catalog.modifications.size());
    }

    @Test
    void switchedTablesAreTheGlobalTablesAndIndexesWrittenTransactional() {
        assertEquals(TableName.valueOf("S.T"), SwitchedTables.switchedTable(header("", "S", "T", "u", true), false));
        assertEquals(TableName.valueOf("S:I"), SwitchedTables.switchedTable(header("", "S", "I", "i", true), true));
        assertEquals(TableName.valueOf("T"), SwitchedTables.switchedTable(header("", "", "T", "u", true), false));
        assertNull(SwitchedTables.switchedTable(header("", "S", "V", "v", true), false), "a view");
        assertNull(SwitchedTables.switchedTable(header("tenant", "S", "T", "u", true), false), "a tenant's row");
        assertNull(SwitchedTables.switchedTable(header("", "S", "T", "u", false), false), "not transactional");
    }

    private static org.apache.hadoop.hbase.client.Result header(String tenant, String schema, String table,
                                                                String type, boolean transactional) {
        byte[] row = Bytes.toBytes(tenant + "\0" + schema + "\0" + table);
        List<Cell> cells = new ArrayList<>();
        cells.add(org.apache.hadoop.hbase.CellUtil.createCell(row, FAMILY, PhoenixDatabaseMetaData.TABLE_TYPE_BYTES,
                7L, org.apache.hadoop.hbase.KeyValue.Type.Put.getCode(), Bytes.toBytes(type)));
        cells.add(org.apache.hadoop.hbase.CellUtil.createCell(row, FAMILY,
                PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES, 7L, org.apache.hadoop.hbase.KeyValue.Type.Put.getCode(),
                PBoolean.INSTANCE.toBytes(transactional)));
        cells.sort(org.apache.hadoop.hbase.CellComparator.getInstance());
        return org.apache.hadoop.hbase.client.Result.create(cells);
    }

    private static Cell cell(Put put, byte[] qualifier) {
        for (Cell cell : put.getFamilyCellMap().get(FAMILY)) {
            if (CellUtil.matchingQualifier(cell, qualifier)) {
                return cell;
            }
        }
        return null;
    }

    private static final class FakeCatalog implements CatalogObserverInstaller.Catalog {
        TableDescriptor current;
        final List<TableDescriptor> modifications = new ArrayList<>();

        FakeCatalog(TableDescriptor current) {
            this.current = current;
        }

        @Override
        public TableName name() {
            return current.getTableName();
        }

        @Override
        public TableDescriptor descriptor() {
            return current;
        }

        @Override
        public void modify(TableDescriptor descriptor) {
            modifications.add(descriptor);
            current = descriptor;
        }
    }
}
