package io.phoenixtxn.bench.tm;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.ConflictTable;
import io.phoenixtxn.tm.LowWaterMark;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The transaction manager in process, FAST'17 style: every operation is one transaction (begin, then commit of a
 * write set whose size follows the power-law mix P(k) ~ k^-alpha, k = 1..256, of uniformly random 64-bit row
 * hashes, so conflicts are rare), against a {@link TransactionManagerCore} with the default configuration
 * (4M-entry, 16-way conflict table). Each thread tells the TM which transactions ended in batches of
 * {@value TmDriver#FINISHED_BATCH}, as clients do. Vary the client threads with {@code -t}:
 *
 * <pre>
 *   java -jar benchmarks/target/benchmarks.jar TmBenchmark -t 8 -f 1 -wi 2 -w 2s -i 3 -r 3s
 *   java -jar benchmarks/target/benchmarks.jar 'TmBenchmark.txThroughput' -p alpha=1.6 -t 64
 * </pre>
 *
 * <ul>
 *   <li>{@code txThroughput}: begin + commit, transactions per second (Mode.Throughput).</li>
 *   <li>{@code txLatency}: the same operation, latency distribution in microseconds (Mode.SampleTime).</li>
 *   <li>{@code conflictDetection}: the {@link ConflictTable} alone (FAST'17 reports 5M tx/s on 8 threads for its
 *       conflict detection); timestamps come from one shared counter instead of the oracle.</li>
 * </ul>
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
public class TmBenchmark {
    private static final long[] TABLES = {0x7AB1E};

    /** One TM per trial, shared by every benchmark thread (a TM serves many clients). */
    @State(Scope.Benchmark)
    public static class Tm {
        @Param({"1.2", "1.6", "2.0"})
        public double alpha;

        TransactionManagerCore core;
        PowerLawSampler sizes;

        @Setup(Level.Trial)
        public void start() {
            core = TransactionManagerCore.startInMemory(TmConfig.defaults());
            sizes = PowerLawSampler.fast17(alpha);
        }

        @TearDown(Level.Trial)
        public void stop() {
            core.close();
        }
    }

    /** The conflict table alone, with its own timestamp counter. */
    @State(Scope.Benchmark)
    public static class Table {
        @Param({"1.2", "1.6", "2.0"})
        public double alpha;

        ConflictTable table;
        LowWaterMark lowWaterMark;
        PowerLawSampler sizes;
        final AtomicLong clock = new AtomicLong(1);

        @Setup(Level.Trial)
        public void create() {
            TmConfig config = TmConfig.defaults();
            lowWaterMark = new LowWaterMark();
            table = new ConflictTable(config.conflictEntries(), config.conflictAssociativity(), lowWaterMark);
            sizes = PowerLawSampler.fast17(alpha);
        }
    }

    /** Per client thread: its random source, a reusable buffer per write-set size, the ended transactions. */
    @State(Scope.Thread)
    public static class Client {
        final SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
        final long[][] buffers = new long[PowerLawSampler.FAST17_MAX_SIZE + 1][];
        final long[] ended = new long[TmDriver.FINISHED_BATCH];
        int endedCount;

        long[] writeSet(PowerLawSampler sizes) {
            int k = sizes.sample(random);
            long[] rows = buffers[k];
            if (rows == null) {
                rows = buffers[k] = new long[k];
            }
            for (int i = 0; i < k; i++) {
                rows[i] = random.nextLong(); // uniform 64-bit row hashes: conflicts are rare
            }
            return rows;
        }
    }

    private static CommitDecision transaction(Tm tm, Client client) throws TmException {
        long txId = tm.core.begin();
        CommitDecision decision = tm.core.commit(txId, client.writeSet(tm.sizes), TABLES);
        client.ended[client.endedCount++] = txId;
        if (client.endedCount == client.ended.length) {
            tm.core.finished(client.ended);
            client.endedCount = 0;
        }
        return decision;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public CommitDecision txThroughput(Tm tm, Client client) throws TmException {
        return transaction(tm, client);
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public CommitDecision txLatency(Tm tm, Client client) throws TmException {
        return transaction(tm, client);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public ConflictTable.Result conflictDetection(Table t, Client client) {
        long txId = t.clock.get();
        long[] rows = client.writeSet(t.sizes);
        return t.table.checkAndRecord(txId, rows, t.clock.incrementAndGet());
    }
}
