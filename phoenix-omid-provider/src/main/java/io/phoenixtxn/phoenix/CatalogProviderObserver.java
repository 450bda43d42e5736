package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.phoenix.jdbc.PhoenixDatabaseMetaData;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.types.PBoolean;
import org.apache.phoenix.schema.types.PTinyint;
import org.apache.phoenix.transaction.TransactionFactory;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A region observer on SYSTEM.CATALOG that keeps one invariant of the catalog: a table header row that says
 * {@code TRANSACTIONAL=true} says which provider too. Phoenix 5.2.1's {@code ALTER TABLE t SET TRANSACTIONAL=true}
 * breaks it for every index {@code t} has at the switch: {@code MetaDataClient.addColumn} marks each index
 * transactional through the {@code incrementTableSeqNum} overload that takes no provider, and Phoenix's server
 * (MetaDataEndpointImpl) reads a transactional header without one as the provider {@code NOTAVAILABLE} (the old
 * Tephra default), so every statement through such an index fails with 1092 "Cannot mix transaction providers".
 *
 * <p>The catalog write is a server-side {@code mutateRowsWithLocks} of Phoenix's endpoint, which calls
 * {@link #prePut} for each row before it validates and applies the batch: the missing cell is added there, with the
 * timestamp of the row's {@code TRANSACTIONAL} cell, so the index's metadata is whole from the moment it is written
 * and no client, in any JVM, ever resolves it without a provider. The provider added is the OMID slot, the only one
 * Phoenix 5.2 has besides the unavailable ones, and the one this provider takes ({@link ProviderSlot}).
 *
 * <p>Installed on SYSTEM.CATALOG by the client the first time Phoenix asks it to make a table transactional
 * ({@link CatalogObserverInstaller}); harmless on any other table (it changes nothing without that header cell).
 * It also refuses converting a local index ({@link #prePut}).
 */
public class CatalogProviderObserver implements RegionCoprocessor, RegionObserver {
    /** SYSTEM.CATALOG's one column family (Phoenix's TABLE_FAMILY_BYTES). */
    private static final byte[] FAMILY = PhoenixDatabaseMetaData.TABLE_FAMILY_BYTES;
    private static final byte[] TRANSACTIONAL = PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES;
    private static final byte[] TRANSACTION_PROVIDER = PhoenixDatabaseMetaData.TRANSACTION_PROVIDER_BYTES;
    /** The OMID slot's code as Phoenix stores it (MetaDataClient.mutateByteProperty: a TINYINT). */
    private static final byte[] OMID = PTinyint.INSTANCE.toBytes(TransactionFactory.Provider.OMID.getCode());

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
    }

    /**
     * Adds the missing provider; refuses the conversion of a local index (not transactional here: Phoenix refuses
     * creating one on a transactional table, but not converting a table that has one).
     */
    @Override
    public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit) throws IOException {
        if (addMissingProvider(put) && isLocalIndex(c.getEnvironment().getRegion(), put.getRow())) {
            throw new DoNotRetryIOException("A local index cannot become transactional (phoenix-txn keeps no local"
                    + " index transactional): drop the local indexes of the table before ALTER TABLE ... SET"
                    + " TRANSACTIONAL=true, and create global ones after it. Nothing was changed");
        }
    }

    /** Whether the catalog row {@code row} (as stored) is a local index's header. */
    private static boolean isLocalIndex(Region catalog, byte[] row) throws IOException {
        Cell type = catalog.get(new Get(row).addColumn(FAMILY, PhoenixDatabaseMetaData.INDEX_TYPE_BYTES))
                .getColumnLatestCell(FAMILY, PhoenixDatabaseMetaData.INDEX_TYPE_BYTES);
        return type != null && type.getValueLength() > 0
                && type.getValueArray()[type.getValueOffset()] == PTable.IndexType.LOCAL.getSerializedValue();
    }

    /**
     * Adds the OMID provider to {@code put} if it sets {@code TRANSACTIONAL=true} without a
     * {@code TRANSACTION_PROVIDER}; returns whether it did. Only table header rows carry either column.
     */
    static boolean addMissingProvider(Put put) {
        List<Cell> cells = put.getFamilyCellMap().get(FAMILY);
        if (cells == null) {
            return false;
        }
        Cell transactional = null;
        for (Cell cell : cells) {
            if (CellUtil.matchingQualifier(cell, TRANSACTION_PROVIDER)) {
                return false;
            }
            if (CellUtil.matchingQualifier(cell, TRANSACTIONAL)) {
                transactional = cell;
            }
        }
        if (transactional == null || !Boolean.TRUE.equals(PBoolean.INSTANCE.toObject(transactional.getValueArray(),
                transactional.getValueOffset(), transactional.getValueLength()))) {
            return false;
        }
        put.addColumn(FAMILY, TRANSACTION_PROVIDER, transactional.getTimestamp(), OMID);
        return true;
    }
}
