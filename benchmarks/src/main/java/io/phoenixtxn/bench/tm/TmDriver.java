package io.phoenixtxn.bench.tm;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Quick in-process TM driver without JMH: N client threads run begin + commit (FAST'17 power-law write sets of
 * random 64-bit rows) for a while and print transactions per second and latency percentiles in microseconds.
 *
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar io.phoenixtxn.bench.tm.TmDriver [threads] [seconds] [alpha] [warmupSeconds]
 * </pre>
 */
public final class TmDriver {
    private static final long[] TABLES = {0x7AB1E};

    /** What one run measured. */
    public record Result(int threads, double seconds, double alpha, long committed, long aborted,
                         LatencyHistogram latency) {
        public double txPerSecond() {
            return (committed + aborted) / seconds;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "threads=%d alpha=%.1f seconds=%.1f tx=%d aborted=%d tx/s=%.0f p50=%.2fus p99=%.2fus"
                            + " p99.9=%.2fus max=%.2fus",
                    threads, alpha, seconds, committed + aborted, aborted, txPerSecond(),
                    latency.percentile(50) / 1e3, latency.percentile(99) / 1e3, latency.percentile(99.9) / 1e3,
                    latency.max() / 1e3);
        }
    }

    private TmDriver() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        double alpha = args.length > 2 ? Double.parseDouble(args[2]) : 1.6;
        double warmup = args.length > 3 ? Double.parseDouble(args[3]) : 2;
        boolean loopback = args.length > 4 && "loopback".equals(args[4]);
        if (threads < 1 || seconds <= 0 || warmup < 0) {
            System.err.println("usage: TmDriver [threads>=1] [seconds>0] [alpha>0] [warmupSeconds>=0]"
                    + " [inprocess|loopback]");
            System.exit(2);
        }
        try (TransactionManagerCore core = TransactionManagerCore.startInMemory(TmConfig.defaults())) {
            if (!loopback) {
                measure(core, threads, seconds, alpha, warmup);
                return;
            }
            // The same TM behind its Netty server on 127.0.0.1, reached by the pipelined client: every
            // client thread shares the client's few connections, as application threads would.
            try (TmServer server = TmServer.start(core, TmServerConfig.defaults().withPort(0));
                 RemoteTransactionManager remote = RemoteTransactionManager.connect(new StaticEndpointResolver(
                         "127.0.0.1", server.address().getPort()), RemoteTmConfig.defaults())) {
                measure(remote, threads, seconds, alpha, warmup);
            }
        }
    }

    private static void measure(TransactionManager tm, int threads, double seconds, double alpha, double warmup)
            throws InterruptedException {
        if (warmup > 0) {
            run(tm, threads, warmup, alpha);
        }
        System.out.println(run(tm, threads, seconds, alpha));
    }

    /** Runs {@code threads} clients against {@code tm} for {@code seconds}. */
    public static Result run(TransactionManager tm, int threads, double seconds, double alpha)
            throws InterruptedException {
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
                        long txId = tm.begin();
                        CommitDecision d = tm.commit(txId, rows, TABLES);
                        h.record(System.nanoTime() - start);
                        if (d.isCommitted()) {
                            committed[me]++;
                        } else {
                            aborted[me]++;
                        }
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
        long begin = System.nanoTime();
        go.countDown();
        // Sleeping is the measurement itself here (run for a fixed wall time), not a synchronisation.
        finished.await((long) (seconds * 1e9), TimeUnit.NANOSECONDS);
        stop.set(true);
        finished.await();
        double elapsed = (System.nanoTime() - begin) / 1e9;
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
        return new Result(threads, elapsed, alpha, c, a, all);
    }
}
