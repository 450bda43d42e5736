package io.phoenixtxn.bench.workload;

import io.phoenixtxn.stack.EmbeddedStack;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Issue 11's read benchmarks on the embedded stack, through JDBC, in one run: a hot row's point SELECT against a
 * cold row's for each history length ({@link HotRowReads}), and the fixed cost of a reading transaction
 * ({@link ReadTransactionCost}). Usage: {@code bin/bench-readcost [--updates 20000,200000] [--threads 1,4]
 * [--reads N] [--warmup N] [--skip-history] [--skip-fixed] [--skip-storage] [--storage-updates N]
 * [--compact-every N]}: reads and warm-up calls per measurement (per thread for the fixed cost, whose thread counts
 * are {@code --threads}); the storage-over-time workload ({@link StorageOverTime}). Prints markdown tables for
 * docs/performance.md.
 */
public final class ReadCostBenchmark {
    private ReadCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int status = 0;
        try {
            run(args, System.out);
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    /** Runs the benchmark on a stack of its own; returns the table rows it printed. */
    public static List<String> run(String[] args, PrintStream out) throws Exception {
        int[] updates = {20_000, 200_000};
        int[] threads = {1, 4};
        int reads = 2_000;
        int warmup = 500;
        boolean history = true;
        boolean fixed = true;
        boolean storage = true;
        int storageUpdates = 200_000;
        int compactEvery = 20_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--updates":
                    updates = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--threads":
                    threads = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--reads":
                    reads = Integer.parseInt(args[++i]);
                    break;
                case "--warmup":
                    warmup = Integer.parseInt(args[++i]);
                    break;
                case "--skip-history":
                    history = false;
                    break;
                case "--skip-fixed":
                    fixed = false;
                    break;
                case "--skip-storage":
                    storage = false;
                    break;
                case "--storage-updates":
                    storageUpdates = Integer.parseInt(args[++i]);
                    break;
                case "--compact-every":
                    compactEvery = Integer.parseInt(args[++i]);
                    break;
                default:
                    throw new IllegalArgumentException("Unknown argument " + args[i] + "; usage: [--updates"
                            + " 20000,200000] [--threads 1,4] [--reads N] [--warmup N] [--skip-history]"
                            + " [--skip-fixed] [--skip-storage] [--storage-updates N] [--compact-every N]");
            }
        }
        List<String> rows = new ArrayList<>();
        try (EmbeddedStack stack = EmbeddedStack.start(Map.of())) {
            if (fixed) {
                out.println("## Fixed cost of a reading transaction (point SELECT by primary key)\n"
                        + ReadTransactionCost.header());
                rows.addAll(ReadTransactionCost.run(stack, threads, warmup, reads, out));
            }
            if (history) {
                out.println("\n## Point SELECT of a hot row vs a cold row (every 10th update rolled back)");
                List<String> hot = new ArrayList<>();
                for (int n : updates) {
                    hot.addAll(HotRowReads.run(stack, n, warmup, reads, out));
                }
                out.println("\n" + HotRowReads.header());
                hot.forEach(out::println);
                rows.addAll(hot);
            }
            if (storage) {
                out.println("\n## Storage over time: hot keys, flush + major compaction every " + compactEvery
                        + " updates\n" + StorageOverTime.header());
                rows.addAll(StorageOverTime.run(stack, storageUpdates, compactEvery, out));
            }
        }
        return rows;
    }
}
