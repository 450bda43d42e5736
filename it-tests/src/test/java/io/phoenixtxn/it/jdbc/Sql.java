package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.jdbc.PhoenixDriver;
import org.apache.phoenix.transaction.PhoenixTransactionContext;

import java.io.IOException;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Small JDBC helpers for the provider's ITs, all on the shared stack.
 *
 * <p>One rule the tests here follow: a connection that checks that someone else's uncommitted writes are
 * invisible begins its transaction (runs a statement) before that writer begins. A reader that starts after a
 * pending writer and meets its cells may, when its region server cannot ask the TM, wait for it briefly and then
 * force-abort it (Omid LL), which would turn the writer's later commit into a conflict.
 */
final class Sql {
    static {
        ensurePhoenixDriver();
    }

    private Sql() {
    }

    /**
     * Once, in one test JVM, DriverManager had no PhoenixDriver ("No suitable driver") at the first connection,
     * though phoenix-core-client lists it as a java.sql.Driver service. DriverManager loads service drivers once,
     * with the context class loader of whichever thread first touches it, and stops at the first driver that fails
     * to initialise; either could leave Phoenix's out. Registering it here (a no-op when present) rules that out.
     */
    private static void ensurePhoenixDriver() {
        List<Driver> drivers = Collections.list(DriverManager.getDrivers());
        if (drivers.stream().noneMatch(d -> d instanceof PhoenixDriver)) {
            System.err.println("Sql: PhoenixDriver was not registered with DriverManager (drivers: " + drivers
                    + "); registering it");
            try {
                DriverManager.registerDriver(PhoenixDriver.INSTANCE);
            } catch (SQLException e) {
                throw new IllegalStateException("Cannot register PhoenixDriver", e);
            }
        }
    }

    static Connection open(boolean autoCommit) throws SQLException {
        Connection c = SharedStack.connect();
        c.setAutoCommit(autoCommit);
        return c;
    }

    /** Creates a transactional table with a fresh name and returns the name. */
    static String createTable(String prefix, String columns) throws SQLException {
        String name = SharedStack.uniqueTable(prefix);
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + name + " (" + columns + ") TRANSACTIONAL=true");
        }
        return name;
    }

    static boolean execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.execute(sql);
        }
    }

    static int update(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    /** Runs statements in one transaction of a fresh connection and commits. */
    static void commitAll(String... statements) throws SQLException {
        try (Connection c = open(false)) {
            for (String sql : statements) {
                update(c, sql);
            }
            c.commit();
        }
    }

    /** The single long the query returns; fails when it returns no row. */
    static long longOf(Connection c, String sql) throws SQLException {
        Long v = longOrNull(c, sql);
        if (v == null) {
            throw new AssertionError("No row (or NULL) from: " + sql);
        }
        return v;
    }

    static Long longOrNull(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                return null;
            }
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
        }
    }

    static String stringOrNull(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** The first column of every row, as longs. */
    static List<Long> longs(Connection c, String sql) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    /** Two-column results as an ordered map (first column -> second column). */
    static Map<Long, Long> pairs(Connection c, String sql) throws SQLException {
        Map<Long, Long> out = new LinkedHashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }

    /** Every column of every row, as strings, one row per list entry ("a|b|c"). */
    static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    if (i > 1) {
                        b.append('|');
                    }
                    b.append(rs.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    static String explain(Connection c, String query) throws SQLException {
        return String.join("\n", rows(c, "EXPLAIN " + query));
    }

    static PhoenixConnection phoenix(Connection c) throws SQLException {
        return c.unwrap(PhoenixConnection.class);
    }

    /** The connection's transaction context (Phoenix's MutationState holds one per connection). */
    static PhoenixTransactionContext context(Connection c) throws SQLException {
        return phoenix(c).getMutationState().getPhoenixTransactionContext();
    }

    static Table hbaseTable(String name) throws IOException {
        return SharedStack.get().hbase().getConnection().getTable(TableName.valueOf(name));
    }

    /**
     * Cells of the physical table written by transaction {@code txId} (at its id or any of its checkpoints) that
     * are still stored, read without any snapshot (our observer passes such plain reads through).
     */
    static List<Cell> cellsOfTransaction(String table, long txId) throws IOException {
        List<Cell> found = new ArrayList<>();
        try (Table t = hbaseTable(table); ResultScanner scanner = t.getScanner(new Scan().readAllVersions())) {
            for (Result r : scanner) {
                for (Cell cell : r.rawCells()) {
                    if (!TimestampLayout.isFastPathVersion(cell.getTimestamp())
                            && TimestampLayout.txIdOf(cell.getTimestamp()) == txId) {
                        found.add(cell);
                    }
                }
            }
        }
        return found;
    }
}
