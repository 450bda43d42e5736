package io.phoenixtxn.it.index;

import io.phoenixtxn.admin.IndexVerifier;
import io.phoenixtxn.it.SharedStack;
import org.apache.phoenix.jdbc.PhoenixConnection;

import java.io.OutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;


/**
 * Checks that an index holds exactly what its data table holds: every row, every value, no stale rows, and that
 * the optimizer really reads the index for the hinted query ({@link IndexVerifier}, the check operators run with
 * {@code phoenix-txn-admin verify-index}). Shared by the online CREATE INDEX tests.
 */
public final class IndexChecks {
    private IndexChecks() {
    }

    /**
     * The index equals the table ({@link IndexVerifier}: every column the index holds, through the index and through
     * a full scan, at one snapshot, and no stale index rows), and the hinted query really reads the index. Returns
     * {@code SELECT columns} of the table (the first column must be the BIGINT key) for the caller's own checks; on
     * a difference, fails with the verifier's report and every raw cell of the differing rows.
     */
    public static Map<Long, String> assertIndexEqualsTable(String table, String index, String columns)
            throws Exception {
        try (Connection c = SharedStack.connect()) {
            c.setAutoCommit(false); // every read below in one transaction: one snapshot
            try {
                IndexVerifier.Report report = IndexVerifier.verify(c, table, index, NO_PROGRESS);
                Map<Long, String> fromTable = rows(c, "SELECT /*+ NO_INDEX */ " + columns + " FROM " + table);
                if (!report.equal()) {
                    Map<Long, String> fromIndex = rows(c, "SELECT /*+ INDEX(" + table + " " + index + ") */ "
                            + columns + " FROM " + table);
                    throw new AssertionError(report.describe() + "\n"
                            + describeDifferences(table, index, fromTable, fromIndex));
                }
                return fromTable;
            } finally {
                c.rollback();
            }
        }
    }

    private static final PrintStream NO_PROGRESS = new PrintStream(OutputStream.nullOutputStream());

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

    public static Map<Long, String> rows(Connection c, String sql) throws SQLException {
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
        return IndexVerifier.count(c, table);
    }

    static String explain(Connection c, String query) throws SQLException {
        return IndexVerifier.explain(c, query);
    }

    /** The id of the transaction the connection is running (its first statement began it). */
    static long transactionId(Connection c) throws SQLException {
        return c.unwrap(PhoenixConnection.class).getMutationState().getPhoenixTransactionContext()
                .getTransactionId();
    }
}
