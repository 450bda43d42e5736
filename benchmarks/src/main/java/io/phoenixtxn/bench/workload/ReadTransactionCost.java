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
 * The fixed cost of a reading transaction (issue 11): a point SELECT by primary key inside an explicit transaction
 * (autocommit off: the SELECT begins it, commit ends it) and as an auto-commit statement, each on a
 * {@code TRANSACTIONAL=true} table and on a plain twin with the same rows, in alternating blocks of one run, on 1 and
 * more threads (each thread its own connections).
 */
final class ReadTransactionCost {
    private static final int ROWS = 1_000;

    private ReadTransactionCost() {
    }

    static String header() {
        return "| point SELECT | threads | transactional mean / p50 / p99 us | plain mean / p50 / p99 us"
                + " | transactional / plain (mean, p50) | load avg |\n| --- | --- | --- | --- | --- | --- |";
    }

    static List<String> run(EmbeddedStack stack, int[] threadCounts, int warmup, int reads, PrintStream out)
            throws Exception {
        try (Connection setup = stack.connect(); Statement s = setup.createStatement()) {
            s.execute("CREATE TABLE READCOST_FIXED_TX (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("CREATE TABLE READCOST_FIXED_PLAIN (K BIGINT PRIMARY KEY, V VARCHAR)");
            setup.setAutoCommit(false);
            for (String table : List.of("READCOST_FIXED_TX", "READCOST_FIXED_PLAIN")) {
                try (PreparedStatement upsert = setup.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?)")) {
                    for (int k = 0; k < ROWS; k++) {
                        upsert.setLong(1, k);
                        upsert.setString(2, "value-" + k);
                        upsert.executeUpdate();
                    }
                }
                setup.commit();
            }
        }
        List<String> rows = new ArrayList<>();
        for (int threads : threadCounts) {
            List<Connection> connections = new ArrayList<>();
            try {
                String tx = "READCOST_FIXED_TX";
                String plain = "READCOST_FIXED_PLAIN";
                List<Stats> stats = new Alternating(threads)
                        .add("explicit tx", t -> select(open(stack, false, connections), tx, true, t))
                        .add("explicit plain", t -> select(open(stack, false, connections), plain, true, t))
                        .add("auto-commit tx", t -> select(open(stack, true, connections), tx, false, t))
                        .add("auto-commit plain", t -> select(open(stack, true, connections), plain, false, t))
                        .run(warmup, reads, 10);
                for (String row : List.of(
                        row("in an explicit transaction (select, commit)", threads, stats.get(0), stats.get(1)),
                        row("auto-commit", threads, stats.get(2), stats.get(3)))) {
                    out.println(row);
                    rows.add(row);
                }
            } finally {
                for (Connection c : connections) {
                    c.close();
                }
            }
        }
        return rows;
    }

    private static Connection open(EmbeddedStack stack, boolean autoCommit, List<Connection> opened) throws Exception {
        Connection c = stack.connect();
        opened.add(c);
        c.setAutoCommit(autoCommit);
        return c;
    }

    /** A point SELECT by a random-looking key of thread {@code thread}'s sequence; commits when asked. */
    private static Alternating.Op select(Connection c, String table, boolean commit, int thread) throws Exception {
        PreparedStatement select = c.prepareStatement("SELECT V FROM " + table + " WHERE K = ?");
        return i -> {
            long key = Math.floorMod((i + thread * 104_729L) * 7919L, ROWS);
            select.setLong(1, key);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("row " + key + " missing in " + table);
                }
            }
            if (commit) {
                c.commit();
            }
        };
    }

    private static String row(String name, int threads, Stats tx, Stats plain) {
        return String.format("| %s | %d | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.2fx, %.2fx | %s |", name, threads,
                tx.meanMicros, tx.p50Micros, tx.p99Micros, plain.meanMicros, plain.p50Micros, plain.p99Micros,
                tx.meanMicros / plain.meanMicros, tx.p50Micros / plain.p50Micros, LoadAverage.now());
    }
}
