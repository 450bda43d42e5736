package io.phoenixtxn.bench.workload;

import io.phoenixtxn.stack.EmbeddedStack;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Issue 5's JDBC comparison, in one run on one minicluster: single-row UPSERT+COMMIT and a point SELECT in a
 * transaction, on a TRANSACTIONAL=true table versus the same statements on a plain table. Keys never collide
 * between threads, so no run aborts; what is measured is the protocol's cost.
 */
final class JdbcWorkload {
    private JdbcWorkload() {
    }

    static List<String> run(EmbeddedStack stack, int[] threadCounts, int warmup, int ops, PrintStream out)
            throws Exception {
        try (Connection c = stack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS BENCH_TX (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("CREATE TABLE IF NOT EXISTS BENCH_PLAIN (K BIGINT PRIMARY KEY, V VARCHAR)");
        }
        List<String> rows = new ArrayList<>();
        for (int threads : threadCounts) {
            for (String table : new String[] {"BENCH_PLAIN", "BENCH_TX"}) {
                rows.add(upserts(stack, table, threads, warmup, ops).row(threads));
                rows.add(selects(stack, table, threads, warmup, ops).row(threads));
                out.println(rows.get(rows.size() - 2));
                out.println(rows.get(rows.size() - 1));
            }
        }
        return rows;
    }

    private static Stats upserts(EmbeddedStack stack, String table, int threads, int warmup, int ops)
            throws Exception {
        Connection[] connections = connections(stack, threads);
        PreparedStatement[] upserts = new PreparedStatement[threads];
        for (int t = 0; t < threads; t++) {
            upserts[t] = connections[t].prepareStatement("UPSERT INTO " + table + " VALUES (?, ?)");
        }
        try {
            return Measure.run(table + " UPSERT+COMMIT", threads, warmup, ops, (t, i) -> {
                upserts[t].setLong(1, t * 10_000_000L + i);
                upserts[t].setString(2, "value-" + i);
                upserts[t].executeUpdate();
                connections[t].commit();
            });
        } finally {
            close(connections);
        }
    }

    private static Stats selects(EmbeddedStack stack, String table, int threads, int warmup, int ops)
            throws Exception {
        Connection[] connections = connections(stack, threads);
        PreparedStatement[] selects = new PreparedStatement[threads];
        for (int t = 0; t < threads; t++) {
            selects[t] = connections[t].prepareStatement("SELECT V FROM " + table + " WHERE K = ?");
        }
        try {
            return Measure.run(table + " point SELECT", threads, warmup, ops, (t, i) -> {
                selects[t].setLong(1, t * 10_000_000L + Math.abs(i) % Math.max(1, ops));
                try (ResultSet rs = selects[t].executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("row " + i + " missing in " + table);
                    }
                }
                connections[t].commit();
            });
        } finally {
            close(connections);
        }
    }

    private static Connection[] connections(EmbeddedStack stack, int n) throws Exception {
        Connection[] connections = new Connection[n];
        for (int i = 0; i < n; i++) {
            connections[i] = stack.connect();
            connections[i].setAutoCommit(false);
        }
        return connections;
    }

    private static void close(Connection[] connections) throws Exception {
        for (Connection c : connections) {
            c.close();
        }
    }
}
