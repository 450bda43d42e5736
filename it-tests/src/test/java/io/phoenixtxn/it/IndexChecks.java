package io.phoenixtxn.it;

import org.apache.phoenix.jdbc.PhoenixConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks that an index holds exactly what its data table holds: every row, every value, no stale rows, and that
 * the optimizer really reads the index for the hinted query. Shared by the online CREATE INDEX tests.
 */
final class IndexChecks {
    private IndexChecks() {
    }

    /**
     * Compares {@code SELECT columns} through the index (hinted) with the same through a full scan of the table,
     * value by value, and the index's row count with the table's. The first column must be the BIGINT key.
     */
    static Map<Long, String> assertIndexEqualsTable(String table, String index, String columns) throws SQLException {
        try (Connection c = SharedStack.connect()) {
            Map<Long, String> fromTable = rows(c, "SELECT /*+ NO_INDEX */ " + columns + " FROM " + table);
            String hinted = "SELECT /*+ INDEX(" + table + " " + index + ") */ " + columns + " FROM " + table;
            String plan = explain(c, hinted);
            assertTrue(plan.contains(index), "the hinted query reads the index:\n" + plan);
            Map<Long, String> fromIndex = rows(c, hinted);
            if (!fromTable.equals(fromIndex)) {
                throw new AssertionError("index content differs from the table:\n"
                        + describeDifferences(table, index, fromTable, fromIndex));
            }
            assertEquals(fromTable.size(), count(c, index), "the index holds no stale rows");
            return fromTable;
        }
    }

    /** The differing rows, with every raw cell (all versions, commit cells included) of their data and index rows. */
    private static String describeDifferences(String table, String index, Map<Long, String> fromTable,
                                              Map<Long, String> fromIndex) {
        StringBuilder out = new StringBuilder();
        java.util.Set<Long> keys = new java.util.TreeSet<>(fromTable.keySet());
        keys.addAll(fromIndex.keySet());
        try (org.apache.hadoop.hbase.client.Connection hbase = org.apache.hadoop.hbase.client.ConnectionFactory
                .createConnection(SharedStack.get().configuration());
             org.apache.hadoop.hbase.client.Table data = hbase.getTable(
                     org.apache.hadoop.hbase.TableName.valueOf(table));
             org.apache.hadoop.hbase.client.Table idx = hbase.getTable(
                     org.apache.hadoop.hbase.TableName.valueOf(index))) {
            for (long k : keys) {
                if (java.util.Objects.equals(fromTable.get(k), fromIndex.get(k))) {
                    continue;
                }
                out.append("K=").append(k).append(": table ").append(fromTable.get(k)).append(", index ")
                        .append(fromIndex.get(k)).append('\n');
                byte[] key = org.apache.phoenix.schema.types.PLong.INSTANCE.toBytes(k);
                org.apache.hadoop.hbase.client.Result row = data.get(
                        new org.apache.hadoop.hbase.client.Get(key).readAllVersions());
                appendCells(out, "  data ", row);
                try (org.apache.hadoop.hbase.client.ResultScanner scanner = idx.getScanner(
                        new org.apache.hadoop.hbase.client.Scan().readAllVersions())) {
                    for (org.apache.hadoop.hbase.client.Result r : scanner) {
                        byte[] rk = r.getRow();
                        if (rk.length >= 8 && java.util.Arrays.equals(rk, rk.length - 8, rk.length, key, 0, 8)) {
                            appendCells(out, "  index ", r);
                        }
                    }
                }
            }
        } catch (java.io.IOException e) {
            out.append("(raw cells unavailable: ").append(e).append(")");
        }
        return out.toString();
    }

    private static void appendCells(StringBuilder out, String prefix, org.apache.hadoop.hbase.client.Result r) {
        if (r.isEmpty()) {
            out.append(prefix).append("(no cells)\n");
            return;
        }
        for (org.apache.hadoop.hbase.Cell cell : r.rawCells()) {
            out.append(prefix).append(org.apache.hadoop.hbase.util.Bytes.toStringBinary(
                    org.apache.hadoop.hbase.CellUtil.cloneRow(cell))).append(' ')
                    .append(org.apache.hadoop.hbase.util.Bytes.toStringBinary(
                            org.apache.hadoop.hbase.CellUtil.cloneQualifier(cell)))
                    .append(" @").append(cell.getTimestamp()).append(' ').append(cell.getType()).append(" = ")
                    .append(org.apache.hadoop.hbase.util.Bytes.toStringBinary(
                            org.apache.hadoop.hbase.CellUtil.cloneValue(cell))).append('\n');
        }
    }

    static Map<Long, String> rows(Connection c, String sql) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            return rows(p);
        }
    }

    /** Key (first column) to the other columns joined by '|'. */
    static Map<Long, String> rows(PreparedStatement p) throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        try (ResultSet rs = p.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 2; i <= columns; i++) {
                    row.append(i > 2 ? "|" : "").append(rs.getObject(i));
                }
                rows.put(rs.getLong(1), row.toString());
            }
        }
        return rows;
    }

    static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String explain(Connection c, String query) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet plan = s.executeQuery("EXPLAIN " + query)) {
            while (plan.next()) {
                text.append(plan.getString(1)).append('\n');
            }
        }
        return text.toString();
    }

    /** The id of the transaction the connection is running (its first statement began it). */
    static long transactionId(Connection c) throws SQLException {
        return c.unwrap(PhoenixConnection.class).getMutationState().getPhoenixTransactionContext()
                .getTransactionId();
    }
}
