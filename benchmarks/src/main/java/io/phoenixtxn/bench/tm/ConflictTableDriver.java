package io.phoenixtxn.bench.tm;

import io.phoenixtxn.tm.ConflictTable;
import io.phoenixtxn.tm.LowWaterMark;
import io.phoenixtxn.tm.TmConfig;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Conflict detection alone (FAST'17 sec. 7: "conflict detection" throughput), one thread, measured in the
 * thread's own CPU time rather than wall-clock time: on a machine shared with other work, wall-clock rates measure
 * the scheduler; CPU time measures what one core does for this thread. Each transaction writes a FAST'17
 * power-law write set of random 64-bit rows into a default-sized table ({@link TmConfig#DEFAULT_CONFLICT_ENTRIES}
 * entries, {@link TmConfig#DEFAULT_CONFLICT_ASSOCIATIVITY} ways) through {@link ConflictTable#checkAndRecord}, whose
 * preparation of the write set (mix, sort, deduplicate) is included; timestamps are a plain counter, so the
 * oracle, fences and decision log are not. Generating the random rows is included too (a few ns per row).
 *
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar io.phoenixtxn.bench.tm.ConflictTableDriver [alpha=2.0] [transactions per round=2000000] [rounds=3]
 * </pre>
 * Prints one line per round; the first round fills the table and warms the JIT.
 */
public final class ConflictTableDriver {
    private ConflictTableDriver() {
    }

    public static void main(String[] args) {
        double alpha = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        ConflictTable table = new ConflictTable(TmConfig.DEFAULT_CONFLICT_ENTRIES,
                TmConfig.DEFAULT_CONFLICT_ASSOCIATIVITY, new LowWaterMark());
        PowerLawSampler sizes = PowerLawSampler.fast17(alpha);
        SplittableRandom random = new SplittableRandom(1);
        long[][] writeSets = new long[PowerLawSampler.FAST17_MAX_SIZE + 1][];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long clock = 1;
        for (int round = 1; round <= rounds; round++) {
            long cpuBefore = threads.getCurrentThreadCpuTime();
            long wallBefore = System.nanoTime();
            long rows = 0;
            int conflicts = 0;
            for (int i = 0; i < perRound; i++) {
                int size = sizes.sample(random);
                long[] writeSet = writeSets[size] == null ? writeSets[size] = new long[size] : writeSets[size];
                for (int r = 0; r < size; r++) {
                    writeSet[r] = random.nextLong();
                }
                rows += size;
                long start = clock;
                if (table.checkAndRecord(start, writeSet, ++clock) != ConflictTable.Result.COMMITTED) {
                    conflicts++;
                }
            }
            long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
            long wall = System.nanoTime() - wallBefore;
            System.out.printf(Locale.ROOT, "round=%d alpha=%.1f tx=%d not-committed=%d ns/tx=%.0f ns/row=%.1f"
                            + " tx/cpu-s=%.0f tx/wall-s=%.0f%n", round, alpha, perRound, conflicts,
                    (double) cpu / perRound, (double) cpu / rows, perRound * 1e9 / cpu, perRound * 1e9 / wall);
        }
    }
}
