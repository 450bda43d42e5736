package io.phoenixtxn.client;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * Turns user mutations into tentative writes at the transaction's write pointer. Deletes become puts: a column
 * delete is a tombstone (empty value), a family or row delete is a family-delete marker (empty qualifier, empty
 * value). User timestamps are overridden: inside a transaction the write pointer is the only version.
 */
final class TentativeWrites {
    private TentativeWrites() {
    }

    static Put fromPut(Put put, long version) {
        Put tentative = new Put(put.getRow(), version);
        copyAttributes(put, tentative);
        for (Map.Entry<byte[], List<Cell>> family : put.getFamilyCellMap().entrySet()) {
            for (Cell cell : family.getValue()) {
                byte[] qualifier = CellUtil.cloneQualifier(cell);
                OnDiskLayout.checkUserQualifier(qualifier);
                tentative.addColumn(family.getKey(), qualifier, version, CellUtil.cloneValue(cell));
            }
        }
        return tentative;
    }

    /**
     * @param tableFamilies the table's column families, used when the delete names no family (a row delete)
     */
    static Put fromDelete(Delete delete, long version, Collection<byte[]> tableFamilies) {
        Put tentative = new Put(delete.getRow(), version);
        copyAttributes(delete, tentative);
        NavigableMap<byte[], List<Cell>> families = delete.getFamilyCellMap();
        if (families.isEmpty()) {
            for (byte[] family : tableFamilies) {
                tentative.addColumn(family, OnDiskLayout.FAMILY_DELETE_QUALIFIER, version, OnDiskLayout.TOMBSTONE);
            }
            return tentative;
        }
        for (Map.Entry<byte[], List<Cell>> family : families.entrySet()) {
            for (Cell cell : family.getValue()) {
                switch (cell.getType()) {
                    case DeleteFamily:
                    case DeleteFamilyVersion:
                        tentative.addColumn(family.getKey(), OnDiskLayout.FAMILY_DELETE_QUALIFIER, version,
                                OnDiskLayout.TOMBSTONE);
                        break;
                    case Delete:
                    case DeleteColumn:
                        byte[] qualifier = CellUtil.cloneQualifier(cell);
                        OnDiskLayout.checkUserQualifier(qualifier);
                        tentative.addColumn(family.getKey(), qualifier, version, OnDiskLayout.TOMBSTONE);
                        break;
                    default:
                        throw new IllegalArgumentException("Unsupported cell type in a transactional delete: "
                                + cell.getType());
                }
            }
        }
        return tentative;
    }

    private static void copyAttributes(Mutation from, Mutation to) {
        from.getAttributesMap().forEach(to::setAttribute);
        to.setDurability(transactionalDurability(from.getDurability()));
    }

    /**
     * Tentative and committed-on-write cells are always synced to the WAL before the put returns, whatever the
     * mutation or table asks (Phoenix's DISABLE_WAL sets SKIP_WAL): the commit point is written after them, and a
     * committed transaction must never point at data a region-server crash can lose. FSYNC_WAL is kept.
     */
    static Durability transactionalDurability(Durability requested) {
        return requested == Durability.FSYNC_WAL ? Durability.FSYNC_WAL : Durability.SYNC_WAL;
    }
}
