package io.phoenixtxn.bench.tm;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Closed-loop TM driver without JMH: N client threads run begin + commit (FAST'17 power-law write sets of random
 * 64-bit rows) for a while and print transactions per second, latency percentiles in microseconds, the GC pauses
 * of the run and the machine's load average. Each thread tells the TM which transactions ended in batches of
 * {@value #FINISHED_BATCH}, as {@code TxnClient} does, so the TM's open-transaction set stays small.
 *
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar io.phoenixtxn.bench.tm.TmDriver [threads] [seconds] [alpha] [warmupSeconds] [inprocess|loopback] [connections]
 * </pre>
 * Several thread counts may be given separated by commas ({@code 1,2,8,64}); each gets its own warm-up and run
 * against the same TM.
 */
public final class TmDriver {
    /** Ended transactions are reported in batches of this size. */
    public static final int FINISHED_BATCH = 64;

    /** What one run measured. */
    public record Result(String system, int threads, double seconds, double alpha, long committed, long aborted,
                         LatencyHistogram latency, String gc, String load, double processCpuSeconds) {
        public double txPerSecond() {
            return (committed + aborted) / seconds;
        }

        /**
         * CPU time of the whole JVM (clients, TM, server, GC, JIT) per transaction: on a shared machine a better
         * guide than wall-clock rates to what idle cores would do (capacity is at most cores / this).
         */
        public double cpuMicrosPerTx() {
            long tx = committed + aborted;
            return tx == 0 ? Double.NaN : processCpuSeconds * 1e6 / tx;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "system=%s threads=%d alpha=%.1f seconds=%.1f tx=%d aborted=%d tx/s=%.0f p50=%.2fus p99=%.2fus"
                            + " p99.9=%.2fus max=%.2fus cpu=%.2fus/tx %s load=%s",
                    system, threads, alpha, seconds, committed + aborted, aborted, txPerSecond(),
                    latency.percentile(50) / 1e3, latency.percentile(99) / 1e3, latency.percentile(99.9) / 1e3,
                    latency.max() / 1e3, cpuMicrosPerTx(), gc, load);
        }
    }

    private TmDriver() {
    }

    public static void main(String[] args) throws Exception {
        int[] threadCounts = args.length > 0 ? Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {8};
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        double alpha = args.length > 2 ? Double.parseDouble(args[2]) : 1.6;
        double warmup = args.length > 3 ? Double.parseDouble(args[3]) : 2;
        boolean loopback = args.length > 4 && "loopback".equals(args[4]);
        int connections = args.length > 5 ? Integer.parseInt(args[5]) : RemoteTmConfig.DEFAULT_CONNECTIONS;
        if (Arrays.stream(threadCounts).anyMatch(t -> t < 1) || seconds <= 0 || warmup < 0) {
            System.err.println("usage: TmDriver [threads>=1[,threads...]] [seconds>0] [alpha>0] [warmupSeconds>=0]"
                    + " [inprocess|loopback] [connections]");
            System.exit(2);
        }
        try (TransactionManagerCore core = TransactionManagerCore.startInMemory(TmConfig.from(System::getProperty))) {
            if (!loopback) {
                measure(TxnSystem.of(core, "phoenix-txn in process"), threadCounts, seconds, alpha, warmup);
                return;
            }
            // The same TM behind its Netty server on 127.0.0.1, reached by the pipelined client: every
            // client thread shares the client's few connections, as application threads would. Settings come from
            // -D system properties (e.g. -Dphoenix.txn.tm.client.spin.us=200), else the defaults.
            try (TmServer server = TmServer.start(core, TmServerConfig.from(System::getProperty).withPort(0));
                 RemoteTransactionManager remote = RemoteTransactionManager.connect(new StaticEndpointResolver(
                         "127.0.0.1", server.address().getPort()), RemoteTmConfig.from(System::getProperty)
                         .withConnections(connections))) {
                measure(TxnSystem.of(remote, "phoenix-txn loopback"), threadCounts, seconds, alpha, warmup);
            }
        }
    }

    private static void measure(TxnSystem system, int[] threadCounts, double seconds, double alpha, double warmup)
            throws Exception {
        for (int threads : threadCounts) {
            if (warmup > 0) {
                run(system, threads, warmup, alpha);
            }
            System.out.println(run(system, threads, seconds, alpha));
        }
    }

    /** Runs {@code threads} clients against {@code tm} for {@code seconds}. */
    public static Result run(TransactionManager tm, int threads, double seconds, double alpha) throws Exception {
        return run(TxnSystem.of(tm, tm.getClass().getSimpleName()), threads, seconds, alpha);
    }

    /** Runs {@code threads} clients against {@code system} for {@code seconds}. */
    public static Result run(TxnSystem system, int threads, double seconds, double alpha) throws Exception {
        PowerLawSampler sizes = PowerLawSampler.fast17(alpha);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(threads);
        LatencyHistogram[] histograms = new LatencyHistogram[threads];
        long[] committed = new long[threads];
        long[] aborted = new long[threads];
        Throwable[] failure = new Throwable[1];
        List<Thread> workers = new ArrayList<>();
        SplittableRandom seeds = new SplittableRandom();
        for (int t = 0; t < threads; t++) {
            int me = t;
            SplittableRandom random = seeds.split();
            histograms[me] = new LatencyHistogram();
            Thread worker = new Thread(() -> {
                long[][] buffers = new long[PowerLawSampler.FAST17_MAX_SIZE + 1][];
                long[] ended = new long[FINISHED_BATCH];
                int endedCount = 0;
                LatencyHistogram h = histograms[me];
                try {
                    ready.countDown();
                    go.await();
                    while (!stop.get()) {
                        int k = sizes.sample(random);
                        long[] rows = buffers[k] == null ? buffers[k] = new long[k] : buffers[k];
                        for (int i = 0; i < k; i++) {
                            rows[i] = random.nextLong();
                        }
                        long start = System.nanoTime();
                        long txId = system.begin();
                        boolean ok = system.commit(txId, rows);
                        h.record(System.nanoTime() - start);
                        if (ok) {
                            committed[me]++;
                        } else {
                            aborted[me]++;
                        }
                        ended[endedCount++] = txId;
                        if (endedCount == FINISHED_BATCH) {
                            system.finished(ended, endedCount);
                            endedCount = 0;
                        }
                    }
                    if (endedCount > 0) {
                        system.finished(ended, endedCount);
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    stop.set(true);
                } finally {
                    finished.countDown();
                }
            }, "tm-client-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        String loadBefore = loadAverage();
        double elapsed;
        String gc;
        long cpuBefore = processCpuNanos();
        long cpuAfter;
        try (GcPauses pauses = GcPauses.record()) {
            long begin = System.nanoTime();
            go.countDown();
            // Waiting is the measurement itself here (run for a fixed wall time), not a synchronisation.
            finished.await((long) (seconds * 1e9), TimeUnit.NANOSECONDS);
            stop.set(true);
            elapsed = (System.nanoTime() - begin) / 1e9;
            cpuAfter = processCpuNanos();
            finished.await();
            gc = pauses.toString();
        }
        synchronized (failure) {
            if (failure[0] != null) {
                throw new IllegalStateException("client thread failed", failure[0]);
            }
        }
        LatencyHistogram all = new LatencyHistogram();
        long c = 0;
        long a = 0;
        for (int t = 0; t < threads; t++) {
            all.add(histograms[t]);
            c += committed[t];
            a += aborted[t];
        }
        return new Result(system.name(), threads, elapsed, alpha, c, a, all, gc,
                loadBefore + ".." + loadAverage(), (cpuAfter - cpuBefore) / 1e9);
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }

    /** The 1-minute load average (Linux), or "?" elsewhere. */
    public static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
