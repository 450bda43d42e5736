package io.phoenixtxn.bench.workload;

import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.phoenix.FastPathRoutingStats;
import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * Issue 12's JDBC-level comparison: Phoenix statements the provider routes onto the fast path (design.md sec. 4.11,
 * Phoenix mapping) against the same statements on a non-transactional table, one minicluster, one run, alternating
 * blocks ({@link Alternating}): an auto-commit single-row UPSERT (fast-path table: one bwc), an auto-commit point
 * SELECT (regular path begun lazily: brc is not routed yet), and a one-row increment as a transaction (SELECT, UPSERT,
 * COMMIT: regular path; br + wc is not routed yet), each beside a transactional table without the fast path. Prints the
 * routing counters, so a run shows which path the statements took.
 *
 * <p>Usage: {@code bin/bench-fastpath-jdbc [--ops N] [--warmup N] [--rounds N]}.
 */
public final class PhoenixFastPathBenchmark {
    private static final int KEYS = 1_000;

    private PhoenixFastPathBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int ops = 2000;
        int warmup = 500;
        int rounds = 10;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("Unknown argument " + args[i]
                        + "; usage: [--ops N] [--warmup N] [--rounds N]");
            }
        }
        int status = 0;
        try (EmbeddedStack stack = EmbeddedStack.start(Map.of())) {
            run(stack, warmup, ops, rounds, System.out);
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    static void run(EmbeddedStack stack, int warmup, int ops, int rounds, PrintStream out) throws Exception {
        String plain = create(stack, "BENCH_JFP_PLAIN", "");
        String fast = create(stack, "BENCH_JFP_FAST", " TRANSACTIONAL=true");
        String regular = create(stack, "BENCH_JFP_REGULAR", " TRANSACTIONAL=true");
        try (Admin admin = stack.hbase().getConnection().getAdmin()) {
            FastPathSwitch.enable(admin, TableName.valueOf(fast)); // opt-in
        }
        String loadBefore = LoadAverage.now();
        long begins = FastPathRoutingStats.tmBegins();
        long fpWrites = FastPathRoutingStats.fastPathWrites();
        List<Stats> upserts = new Alternating()
                .add("non-transactional: auto-commit UPSERT", t -> upsert(stack, plain))
                .add("FP table: auto-commit UPSERT (bwc)", t -> upsert(stack, fast))
                .add("transactional, no FP: auto-commit UPSERT", t -> upsert(stack, regular))
                .run(warmup, ops, rounds);
        List<Stats> selects = new Alternating()
                .add("non-transactional: auto-commit point SELECT", t -> select(stack, plain))
                .add("FP table: auto-commit point SELECT", t -> select(stack, fast))
                .add("transactional, no FP: auto-commit point SELECT", t -> select(stack, regular))
                .run(warmup, ops, rounds);
        List<Stats> increments = new Alternating()
                .add("non-transactional: SELECT + UPSERT", t -> increment(stack, plain))
                .add("FP table: SELECT + UPSERT + COMMIT", t -> increment(stack, fast))
                .add("transactional, no FP: SELECT + UPSERT + COMMIT", t -> increment(stack, regular))
                .run(warmup, ops, rounds);
        String loadAfter = LoadAverage.now();
        boolean smoke = Double.parseDouble(loadBefore.split(" ")[0]) > 0.5
                || Double.parseDouble(loadAfter.split(" ")[0]) > 0.5;
        out.printf("%n### JDBC, 1 thread: load average (1/5/15 min) %s before, %s after%s%n%n%s%n", loadBefore,
                loadAfter, smoke ? " (SMOKE: load above 0.5, figures inflated)" : "", Stats.header());
        for (List<Stats> comparison : List.of(upserts, selects, increments)) {
            for (Stats s : comparison) {
                out.println(s.row(1));
            }
        }
        out.println();
        for (List<Stats> c : List.of(upserts, selects, increments)) {
            out.printf("- %s / %s: p50 %.2fx, mean %.2fx; %s / same: p50 %.2fx%n", c.get(1).name, c.get(0).name,
                    c.get(1).p50Micros / c.get(0).p50Micros, c.get(1).meanMicros / c.get(0).meanMicros,
                    c.get(2).name, c.get(2).p50Micros / c.get(0).p50Micros);
        }
        out.printf("%nRouting: %d TM begins, %d fast-path writes, fast-path aborts: tentative %d, newer commit %d,"
                        + " slot unavailable %d, fenced %d%n", FastPathRoutingStats.tmBegins() - begins,
                FastPathRoutingStats.fastPathWrites() - fpWrites,
                FastPathRoutingStats.aborts(io.phoenixtxn.client.fastpath.FastPathAbortedException.Reason
                        .TENTATIVE_VERSION),
                FastPathRoutingStats.aborts(io.phoenixtxn.client.fastpath.FastPathAbortedException.Reason
                        .NEWER_COMMIT),
                FastPathRoutingStats.aborts(io.phoenixtxn.client.fastpath.FastPathAbortedException.Reason
                        .SLOT_UNAVAILABLE),
                FastPathRoutingStats.aborts(io.phoenixtxn.client.fastpath.FastPathAbortedException.Reason.FENCED));
    }

    private static String create(EmbeddedStack stack, String name, String options) throws Exception {
        try (Connection c = stack.connect(routed()); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + name + " (K BIGINT PRIMARY KEY, V BIGINT)" + options);
            c.commit();
        }
        return name;
    }

    private static Alternating.Op upsert(EmbeddedStack stack, String table) throws Exception {
        Connection c = stack.connect(routed());
        c.setAutoCommit(true);
        PreparedStatement upsert = c.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?)");
        return i -> {
            upsert.setLong(1, Math.floorMod(i, KEYS));
            upsert.setLong(2, i);
            upsert.executeUpdate();
        };
    }

    private static Alternating.Op select(EmbeddedStack stack, String table) throws Exception {
        Connection c = stack.connect(routed());
        c.setAutoCommit(true);
        PreparedStatement select = c.prepareStatement("SELECT V FROM " + table + " WHERE K = ?");
        return i -> {
            select.setLong(1, Math.floorMod(i, KEYS));
            try (ResultSet r = select.executeQuery()) {
                while (r.next()) {
                    r.getLong(1);
                }
            }
        };
    }

    private static Alternating.Op increment(EmbeddedStack stack, String table) throws Exception {
        Connection c = stack.connect(routed());
        c.setAutoCommit(false);
        PreparedStatement select = c.prepareStatement("SELECT V FROM " + table + " WHERE K = ?");
        PreparedStatement upsert = c.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?)");
        return i -> {
            long k = Math.floorMod(i, KEYS);
            select.setLong(1, k);
            long v = 0;
            try (ResultSet r = select.executeQuery()) {
                if (r.next()) {
                    v = r.getLong(1);
                }
            }
            upsert.setLong(1, k);
            upsert.setLong(2, v + 1);
            upsert.executeUpdate();
            c.commit();
        };
    }

    /** Fast-path routing is off by default; the benchmark's connection service turns it on. */
    private static java.util.Properties routed() {
        java.util.Properties props = new java.util.Properties();
        props.setProperty(io.phoenixtxn.tm.TxnSettings.FASTPATH_ROUTING.key(), "true");
        return props;
    }
}
