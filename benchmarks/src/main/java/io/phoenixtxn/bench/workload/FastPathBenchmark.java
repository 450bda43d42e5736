package io.phoenixtxn.bench.workload;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.client.fastpath.FastPathFunction;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Issue 12's HBase-level comparison (VLDB'18 sec. 5, Figure 5): the fast path against native HBase on the same
 * minicluster in one run, with the regular path beside it: bwc vs a native put, brc vs a native get, brwc (an
 * increment read and written in one round trip) vs a native get + put, each at every thread count asked for (the 8-thread
 * rows give the throughput comparison). Operations of one comparison alternate in blocks ({@link Alternating}), so
 * drift in a shared machine's load falls on all of them alike; the load average is printed with every table, and a
 * run under load above 0.5 is labelled a smoke run. Fast-path fallbacks to the regular path are counted.
 *
 * <p>Usage: {@code bin/bench-fastpath [--ops N] [--warmup N] [--threads 1,8] [--rounds N]}.
 */
public final class FastPathBenchmark {
    private static final byte[] FAMILY = ClientWorkload.FAMILY;
    private static final byte[] QUALIFIER = ClientWorkload.QUALIFIER;
    /** Rows per thread: reads find rows the warm-up wrote, writes of a thread never contend with another's. */
    private static final int KEYS = 1_000;

    private FastPathBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int ops = 2000;
        int warmup = 500;
        int rounds = 10;
        int[] threads = {1, 8};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                default -> throw new IllegalArgumentException("Unknown argument " + args[i]
                        + "; usage: [--ops N] [--warmup N] [--threads 1,8] [--rounds N]");
            }
        }
        int status = 0;
        try (EmbeddedStack stack = EmbeddedStack.start(Map.of())) {
            run(stack, threads, warmup, ops, rounds, System.out);
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    static void run(EmbeddedStack stack, int[] threadCounts, int warmup, int ops, int rounds, PrintStream out)
            throws Exception {
        Connection hbase = stack.hbase().getConnection();
        TableName plain = ClientWorkload.create(hbase, "BENCH_FP_PLAIN", false);
        TableName fast = ClientWorkload.create(hbase, "BENCH_FP_FAST", true);
        try (Admin admin = hbase.getAdmin()) {
            FastPathSwitch.enable(admin, fast); // opt-in
        }
        TableName regular = ClientWorkload.create(hbase, "BENCH_FP_REGULAR", true);
        try (TmHandle tm = TmLocator.locate(stack.configuration()::get);
             TxnClient client = new TxnClient(hbase, tm, TxnClientConfig.from(stack.configuration()::get));
             FastPathClient fastPath = new FastPathClient(client)) {
            for (int threads : threadCounts) {
                String loadBefore = LoadAverage.now();
                List<List<Stats>> comparisons = new ArrayList<>();
                try (Table native_ = hbase.getTable(plain); FastPathTable fp = fastPath.table(fast);
                     TransactionalTable tx = client.table(regular)) {
                    comparisons.add(new Alternating(threads)
                            .add("native HBase put", t -> i -> native_.put(put(t, i, i)))
                            .add("FP bwc", t -> i -> fp.bwc(put(t, i, i)))
                            .add("regular: begin, put, commit", t -> i -> {
                                Transaction txn = client.begin();
                                tx.put(txn, put(t, i, i));
                                client.commit(txn);
                            })
                            .run(warmup, ops, rounds));
                    comparisons.add(new Alternating(threads)
                            .add("native HBase get", t -> i -> native_.get(get(t, i)))
                            .add("FP brc", t -> i -> fp.brc(get(t, i)))
                            .add("regular: begin, get, commit", t -> i -> {
                                Transaction txn = client.begin();
                                tx.get(txn, get(t, i));
                                client.commit(txn);
                            })
                            .run(warmup, ops, rounds));
                    comparisons.add(new Alternating(threads)
                            .add("native HBase get + put (increment)", t -> i -> {
                                Result r = native_.get(get(t, i));
                                native_.put(put(t, i, valueOf(r) + 1));
                            })
                            .add("FP brwc (increment)", t -> i -> fp.brwc(row(t, i),
                                    FastPathFunction.increment(FAMILY, QUALIFIER, 1)))
                            .add("regular: begin, get, put, commit (increment)", t -> i -> {
                                Transaction txn = client.begin();
                                Result r = tx.get(txn, get(t, i));
                                tx.put(txn, put(t, i, valueOf(r) + 1));
                                client.commit(txn);
                            })
                            .run(warmup, ops, rounds));
                }
                String loadAfter = LoadAverage.now();
                boolean smoke = Double.parseDouble(loadBefore.split(" ")[0]) > 0.5
                        || Double.parseDouble(loadAfter.split(" ")[0]) > 0.5;
                out.printf("%n### %d thread(s): load average (1/5/15 min) %s before, %s after%s%n%n%s%n", threads,
                        loadBefore, loadAfter, smoke ? " (SMOKE: load above 0.5, figures inflated)" : "",
                        Stats.header());
                for (List<Stats> comparison : comparisons) {
                    for (Stats s : comparison) {
                        out.println(s.row(threads));
                    }
                }
                out.println();
                for (List<Stats> c : comparisons) {
                    Stats nat = c.get(0);
                    Stats fp = c.get(1);
                    Stats reg = c.get(2);
                    out.printf("- %s / %s: p50 %.2fx, mean %.2fx, throughput %.2fx; regular / native: p50 %.2fx%n",
                            fp.name, nat.name, fp.p50Micros / nat.p50Micros, fp.meanMicros / nat.meanMicros,
                            fp.opsPerSecond / nat.opsPerSecond, reg.p50Micros / nat.p50Micros);
                }
            }
            out.printf("%nFast-path fallbacks counted by the client: %s (the table above calls FastPathTable directly:"
                    + " any abort would have failed the run)%n", fastPath.stats());
        }
    }

    private static byte[] row(int thread, int i) {
        return Bytes.toBytes(thread * 10_000_000L + Math.floorMod(i, KEYS));
    }

    private static Put put(int thread, int i, long value) {
        return new Put(row(thread, i)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value));
    }

    private static Get get(int thread, int i) {
        return new Get(row(thread, i)).addColumn(FAMILY, QUALIFIER);
    }

    private static long valueOf(Result r) {
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        return v == null ? 0 : Bytes.toLong(v);
    }
}
