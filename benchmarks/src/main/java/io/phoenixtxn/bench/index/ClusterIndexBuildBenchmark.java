package io.phoenixtxn.bench.index;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A large CREATE INDEX with the client in a JVM of its own: the cluster runs elsewhere (the processes of
 * {@code bin/phoenix-txn-cluster}), this JVM only loads the transactional table through JDBC, runs one quiet
 * {@code CREATE INDEX ... (V) INCLUDE (N)} and verifies the index. It reports the client's heap: the peak heap in
 * use sampled every 100 ms during the build, and the peak of the old generation after collections (what the client
 * retained), next to the JVM's maximum heap ({@code -Xmx}, set by {@code bin/bench-index-cluster}, 1 GB by default).
 * <p>
 * Usage: {@code ClusterIndexBuildBenchmark --url JDBC-URL [--rows N] [--regions R] [--batch N] [--load-threads T]
 * [--samples N]}. Prints markdown for docs/performance.md on stdout, progress on stderr.
 */
public final class ClusterIndexBuildBenchmark {
    private static final String INDEX = Tables.TX + "_V";

    private String url;
    private long rows = 1_000_000;
    private int regions = 8;
    private int batch = 5_000;
    private int loadThreads = 2;
    private int samples = 200;
    private final PrintStream out = System.out;

    private ClusterIndexBuildBenchmark() {
    }

    public static void main(String[] args) {
        ClusterIndexBuildBenchmark b = new ClusterIndexBuildBenchmark();
        int status = 0;
        try {
            b.parse(args);
            b.run();
        } catch (Throwable e) {
            System.out.flush();
            System.err.println("CLUSTER INDEX BENCHMARK FAILED: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--url" -> url = args[++i];
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--regions" -> regions = Integer.parseInt(args[++i]);
                case "--batch" -> batch = Integer.parseInt(args[++i]);
                case "--load-threads" -> loadThreads = Integer.parseInt(args[++i]);
                case "--samples" -> samples = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (url == null) {
            throw new IllegalArgumentException("--url JDBC-URL is required (bin/phoenix-txn-cluster url prints it)");
        }
    }

    private void run() throws Exception {
        out.printf("# CREATE INDEX with the client in its own JVM%n%n");
        out.printf("- arguments: --url %s --rows %d --regions %d --batch %d --load-threads %d --samples %d%n", url,
                rows, regions, batch, loadThreads, samples);
        out.printf("- client JVM: %s %s, %d processors, max heap %d MB; load average at start: %s%n",
                System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                HeapSampler.loadAverage());
        out.flush();
        BenchCluster cluster = BenchCluster.remote(url);
        try (BuildObserver observer = BuildObserver.install()) {
            Tables.create(cluster, rows, regions, false);
            progress("loading %,d rows into %s", rows, Tables.TX);
            Tables.Load load = Tables.load(cluster, Tables.TX, rows, batch, loadThreads);
            progress("loaded %s: %.0f rows/s", Tables.TX, load.rowsPerSecond());
            Tables.flush(cluster, Tables.TX);
            Thread.sleep(6_000); // region metrics reach the master with the next heartbeats
            String size = Tables.describe(cluster, Tables.TX);
            out.printf("%n## Load (%,d rows, commit every %,d rows, %d loader threads)%n%n", rows, batch,
                    loadThreads);
            out.println("| commits | seconds | rows/s | rows/s until post-commits settled | after flush |");
            out.println("| ---: | ---: | ---: | ---: | --- |");
            out.printf("| %d | %.1f | %,.0f | %,.0f | %s |%n", load.commits, load.nanos / 1e9, load.rowsPerSecond(),
                    load.settledRowsPerSecond(), size);
            out.flush();

            System.gc();
            resetPoolPeaks();
            String sql = "CREATE INDEX " + INDEX + " ON " + Tables.TX + " (V) INCLUDE (N)";
            progress("%s (load average %s)", sql, HeapSampler.loadAverage());
            HeapSampler heap = new HeapSampler();
            long since = System.nanoTime();
            long nanos;
            try (Connection c = cluster.connect(); Statement s = c.createStatement()) {
                long t0 = System.nanoTime();
                s.execute(sql);
                nanos = System.nanoTime() - t0;
            } finally {
                heap.stop();
            }
            long oldGenPeak = oldGenerationPeakMb();
            BuildObserver.Population p = observer.latestPopulation(Tables.TX, since);
            progress("%s built in %.1f s", INDEX, nanos / 1e9);
            out.printf("%n## CREATE INDEX, no writers (client at -Xmx%d MB)%n%n",
                    Runtime.getRuntime().maxMemory() >> 20);
            out.println("| CREATE INDEX s | population (IndexBuildProgress) s | rows scanned | rows written | client"
                    + " heap in use, peak MB (sampled) | client old generation, peak MB | GC collections / time ms"
                    + " during the build |");
            out.println("| ---: | ---: | ---: | ---: | ---: | ---: | --- |");
            out.printf("| %.1f | %s | %s | %s | %d | %d | %s |%n", nanos / 1e9,
                    p == null || p.populationMillis() < 0 ? "-" : String.format("%.1f", p.populationMillis() / 1e3),
                    p == null ? "-" : String.format("%,d", p.rowsScanned()),
                    p == null ? "-" : String.format("%,d", p.rowsWritten()), heap.peakMb(), oldGenPeak,
                    heap.gcSummary());
            out.flush();

            out.printf("%n## Verification%n%n");
            out.printf("- %s on %s(V): %s%n", INDEX, Tables.TX,
                    IndexVerifier.verify(cluster, Tables.TX, INDEX, "V", rows, samples, INDEX.hashCode()));
            out.printf("%nLoad average at end: %s%n", HeapSampler.loadAverage());
        } finally {
            cluster.hbase().close();
        }
    }

    private static void resetPoolPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** Peak of the old generation since the last reset (after collections, so what the client kept). */
    private static long oldGenerationPeakMb() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getName().contains("Old")) {
                peak = Math.max(peak, pool.getPeakUsage().getUsed());
            }
        }
        return peak >> 20;
    }

    private static void progress(String format, Object... args) {
        System.err.printf("[bench-index-cluster] " + format + "%n", args);
    }
}
