package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.phoenix.jdbc.PhoenixDatabaseMetaData;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.schema.types.PBoolean;
import org.apache.phoenix.util.SchemaUtil;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables and indexes whose SYSTEM.CATALOG header was written {@code TRANSACTIONAL=true} since a time: what an
 * {@code ALTER TABLE ... SET TRANSACTIONAL=true} converted, plus tables created transactional meanwhile (which
 * {@link ConversionFence} only looks at). Read from the catalog, not from Phoenix's metadata cache: Phoenix's ALTER
 * drops a table that has indexes from the cache, and the connection's next transaction may begin before anything
 * resolves the table again (a statement on another table first). One scan of the catalog's cells in the time range
 * (HBase skips store files wholly older than it) and of two columns only header rows carry; global tables and indexes
 * only (a tenant's rows are views, and a view shares its table's physical table).
 */
final class SwitchedTables {
    private static final byte[] FAMILY = PhoenixDatabaseMetaData.TABLE_FAMILY_BYTES;
    private static final byte[] TRANSACTIONAL = PhoenixDatabaseMetaData.TRANSACTIONAL_BYTES;
    private static final byte[] TABLE_TYPE = PhoenixDatabaseMetaData.TABLE_TYPE_BYTES;

    private SwitchedTables() {
    }

    /** Physical names of the tables and indexes written transactional at or after {@code sinceMs}. */
    static List<TableName> since(Connection hbase, TableName catalog, long sinceMs, boolean namespaceMapped)
            throws IOException {
        Scan scan = new Scan().addColumn(FAMILY, TRANSACTIONAL).addColumn(FAMILY, TABLE_TYPE)
                .setTimeRange(Math.max(0, sinceMs), Long.MAX_VALUE);
        List<TableName> switched = new ArrayList<>();
        try (Table table = hbase.getTable(catalog); ResultScanner rows = table.getScanner(scan)) {
            for (Result row : rows) {
                TableName name = switchedTable(row, namespaceMapped);
                if (name != null) {
                    switched.add(name);
                }
            }
        }
        return switched;
    }

    /** The physical table of a catalog header written {@code TRANSACTIONAL=true}, or null for any other row. */
    static TableName switchedTable(Result row, boolean namespaceMapped) {
        byte[] transactional = row.getValue(FAMILY, TRANSACTIONAL);
        byte[] type = row.getValue(FAMILY, TABLE_TYPE);
        if (transactional == null || type == null || type.length == 0
                || !Boolean.TRUE.equals(PBoolean.INSTANCE.toObject(transactional))) {
            return null;
        }
        PTableType tableType;
        try {
            tableType = PTableType.fromSerializedValue(type[0]);
        } catch (RuntimeException e) {
            return null; // a type this Phoenix does not know
        }
        if (tableType != PTableType.TABLE && tableType != PTableType.INDEX) {
            return null;
        }
        byte[][] key = new byte[3][];
        if (SchemaUtil.getVarChars(row.getRow(), key) < 3 || key[0].length > 0) {
            return null; // not a header row's key, or a tenant's (views only)
        }
        return TableName.valueOf(SchemaUtil.getPhysicalHBaseTableName(key[1], key[2], namespaceMapped).getBytes());
    }
}
