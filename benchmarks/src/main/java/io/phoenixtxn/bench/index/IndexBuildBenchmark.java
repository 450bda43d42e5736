package io.phoenixtxn.bench.index;

import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.AbortReason;
import org.apache.phoenix.query.QueryServices;
import org.apache.phoenix.query.QueryServicesOptions;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Online CREATE INDEX benchmark on the embedded stack (minicluster, embedded TM and Phoenix in one JVM).
 * <ol>
 *   <li>Creates a TRANSACTIONAL=true table and a non-transactional copy (same columns, same rows), loads both with
 *       batched UPSERTs and reports the load rates.</li>
 *   <li>Quiet builds: {@code CREATE INDEX ... (V) INCLUDE (N)} on the copy, then on the transactional table, with
 *       no writers; reports both times and their ratio. Phoenix's index population sleep
 *       ({@code phoenix.index.population.wait.time}) is set to 0 for the copy's build (Phoenix never applies it to
 *       transactional tables), and the copy's build with Phoenix's default is timed separately on a second index.</li>
 *   <li>Live build: W writers run transactions on the transactional table; their commits/s is measured before,
 *       during and after a {@code CREATE INDEX ... (S) INCLUDE (N)}; TM aborts are counted by reason through the
 *       provider's protocol hook, and 523 errors seen by writers by kind.</li>
 *   <li>Verifies every index against its table (counts, sums, sampled point lookups through the index) and fails
 *       loudly if one differs. Reports the population's progress (rows scanned and written).</li>
 * </ol>
 * Usage: {@code bin/bench-index [--rows N] [--writers W] [--batch N] [--load-threads T] [--regions R]
 * [--guidepost-width B] [--warmup S] [--window S] [--tx-rows N] [--samples N] [--skip-sleep-run] [--hold-writers-at-fence]
 * [--writers-own-client]}. Prints markdown for docs/performance.md on stdout; the stack logs to stderr.
 * <p>
 * Two options force the interleaving that matters most for correctness: {@code --writers-own-client} gives the
 * writers their own Phoenix client (connection services and metadata cache, as writers in another JVM have), and
 * {@code --hold-writers-at-fence} stops W writer commits just before their TM call until the fence is taken, so
 * every one of them began before the fence with metadata that predates the index and is aborted by the fence; with
 * their own client, Phoenix's commit retry replays them. If an index then differs from its table, the run prints
 * the differing keys, the writers' transactions on them and the raw cells of their rows ({@link Diagnosis}).
 */
public final class IndexBuildBenchmark {
    private static final String TX_QUIET = Tables.TX + "_V";
    private static final String TX_LIVE = Tables.TX + "_S";
    private static final String PLAIN_QUIET = Tables.PLAIN + "_V";
    private static final String PLAIN_DEFAULT_SLEEP = Tables.PLAIN + "_S";

    private long rows = 20_000;
    private int writers = 4;
    private int batch = 5_000;
    private int loadThreads = 2;
    private int regions = 4;
    /** GUIDE_POSTS_WIDTH of both tables and statistics collected after the load; 0: none (no guideposts). */
    private long guidepostWidth;
    private int warmupSeconds = 10;
    private int windowSeconds = 30;
    private int txRows = 1;
    private int samples = 200;
    private boolean sleepRun = true;
    private boolean holdAtFence;
    private boolean writersOwnClient;
    /** Cluster settings for the stack (--set key=value), in the order given. */
    private final Map<String, String> settings = new LinkedHashMap<>();

    private final PrintStream out = System.out;
    private Writers writersForDiagnosis;
    private BuildObserver observerForDiagnosis;

    private IndexBuildBenchmark() {
    }

    /** One timed CREATE INDEX. */
    private static final class Build {
        final String index;
        final String table;
        final String note;
        final long nanos;
        final long peakHeapMb;
        final BuildObserver.Population population;

        Build(String index, String table, String note, long nanos, long peakHeapMb,
              BuildObserver.Population population) {
            this.index = index;
            this.table = table;
            this.note = note;
            this.nanos = nanos;
            this.peakHeapMb = peakHeapMb;
            this.population = population;
        }

        double seconds() {
            return nanos / 1e9;
        }
    }

    public static void main(String[] args) throws Exception {
        IndexBuildBenchmark b = new IndexBuildBenchmark();
        b.parse(args);
        int status = 0;
        try {
            b.run();
        } catch (Throwable e) {
            System.out.flush();
            System.err.println("INDEX BENCHMARK FAILED: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private String settingsArguments() {
        StringBuilder b = new StringBuilder();
        settings.forEach((k, v) -> b.append(" --set ").append(k).append('=').append(v));
        return b.toString();
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--writers": writers = Integer.parseInt(args[++i]); break;
                case "--batch": batch = Integer.parseInt(args[++i]); break;
                case "--load-threads": loadThreads = Integer.parseInt(args[++i]); break;
                case "--regions": regions = Integer.parseInt(args[++i]); break;
                case "--guidepost-width": guidepostWidth = Long.parseLong(args[++i]); break;
                case "--warmup": warmupSeconds = Integer.parseInt(args[++i]); break;
                case "--window": windowSeconds = Integer.parseInt(args[++i]); break;
                case "--tx-rows": txRows = Integer.parseInt(args[++i]); break;
                case "--samples": samples = Integer.parseInt(args[++i]); break;
                case "--skip-sleep-run": sleepRun = false; break;
                case "--hold-writers-at-fence": holdAtFence = true; break;
                case "--writers-own-client": writersOwnClient = true; break;
                case "--set": set(args[++i]); break;
                default:
                    throw new IllegalArgumentException("Unknown argument " + args[i] + "; usage: [--rows N]"
                            + " [--writers W] [--batch N] [--load-threads T] [--regions R] [--guidepost-width B] [--warmup S]"
                            + " [--window S] [--tx-rows N] [--samples N] [--skip-sleep-run] [--hold-writers-at-fence]"
                            + " [--writers-own-client] [--set key=value]...");
            }
        }
    }

    /** A cluster setting for the stack (its region servers included), e.g. a population pacing share. */
    private void set(String keyValue) {
        int eq = keyValue.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("--set takes key=value, got " + keyValue);
        }
        settings.put(keyValue.substring(0, eq), keyValue.substring(eq + 1));
    }

    private void run() throws Exception {
        out.printf("# Online CREATE INDEX benchmark%n%n");
        out.printf("- arguments: --rows %d --writers %d --batch %d --load-threads %d --regions %d --warmup %d"
                        + " --window %d --tx-rows %d --samples %d%s%n", rows, writers, batch, loadThreads, regions,
                warmupSeconds, windowSeconds, txRows, samples, (sleepRun ? "" : " --skip-sleep-run")
                        + (holdAtFence ? " --hold-writers-at-fence" : "")
                        + (writersOwnClient ? " --writers-own-client" : "")
                        + (guidepostWidth > 0 ? " --guidepost-width " + guidepostWidth : "")
                        + settingsArguments());
        out.printf("- JVM: %s %s, %d processors, max heap %d MB; load average at start: %s%n",
                System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                HeapSampler.loadAverage());
        out.flush();
        try (EmbeddedStack stack = EmbeddedStack.start(settings); BuildObserver observer = BuildObserver.install()) {
            observerForDiagnosis = observer;
            long phoenixSleep = stack.configuration().getLong(QueryServices.INDEX_POPULATION_SLEEP_TIME,
                    QueryServicesOptions.DEFAULT_INDEX_POPULATION_SLEEP_TIME);
            Tables.create(BenchCluster.embedded(stack), rows, regions, true, guidepostWidth);

            Tables.Load plainLoad = Tables.load(BenchCluster.embedded(stack), Tables.PLAIN, rows, batch, loadThreads);
            progress("loaded %s: %.0f rows/s", Tables.PLAIN, plainLoad.rowsPerSecond());
            Tables.Load txLoad = Tables.load(BenchCluster.embedded(stack), Tables.TX, rows, batch, loadThreads);
            progress("loaded %s: %.0f rows/s (%.0f rows/s until post-commits settled)", Tables.TX,
                    txLoad.rowsPerSecond(), txLoad.settledRowsPerSecond());
            Tables.flush(BenchCluster.embedded(stack), Tables.PLAIN);
            Tables.flush(BenchCluster.embedded(stack), Tables.TX);
            if (guidepostWidth > 0) {
                progress("statistics: %d guideposts of %s, %d of %s", Tables.collectStatistics(
                        BenchCluster.embedded(stack), Tables.PLAIN), Tables.PLAIN, Tables.collectStatistics(
                        BenchCluster.embedded(stack), Tables.TX), Tables.TX);
            }
            Thread.sleep(6_000); // region metrics reach the master with the next heartbeats
            String plainSize = Tables.describe(BenchCluster.embedded(stack), Tables.PLAIN);
            String txSize = Tables.describe(BenchCluster.embedded(stack), Tables.TX);
            long abortsWhileLoading = observer.abortsOutsideLiveRun();

            out.printf("%n## Load (%,d rows per table, commit every %,d rows, %d loader threads)%n%n", rows, batch,
                    loadThreads);
            out.println("| table | commits | seconds | rows/s | rows/s until post-commits settled | after flush |");
            out.println("| --- | ---: | ---: | ---: | ---: | --- |");
            out.printf("| non-transactional copy | %d | %.1f | %,.0f | (same) | %s |%n", plainLoad.commits,
                    plainLoad.nanos / 1e9, plainLoad.rowsPerSecond(), plainSize);
            out.printf("| transactional | %d | %.1f | %,.0f | %,.0f | %s |%n", txLoad.commits, txLoad.nanos / 1e9,
                    txLoad.rowsPerSecond(), txLoad.settledRowsPerSecond(), txSize);
            out.printf("%nTM aborts while loading: %d%n", abortsWhileLoading);
            out.flush();

            // ---- quiet builds
            List<Build> quiet = new ArrayList<>();
            Properties noSleep = new Properties();
            noSleep.setProperty(QueryServices.INDEX_POPULATION_SLEEP_TIME, "0");
            quiet.add(build(stack, observer, PLAIN_QUIET, Tables.PLAIN, "V", noSleep,
                    QueryServices.INDEX_POPULATION_SLEEP_TIME + "=0"));
            quiet.add(build(stack, observer, TX_QUIET, Tables.TX, "V", new Properties(), ""));
            if (sleepRun) {
                quiet.add(build(stack, observer, PLAIN_DEFAULT_SLEEP, Tables.PLAIN, "S", new Properties(),
                        "Phoenix default, " + QueryServices.INDEX_POPULATION_SLEEP_TIME + "=" + phoenixSleep));
            }
            Build plainBuild = quiet.get(0);
            Build txBuild = quiet.get(1);
            out.printf("%n## CREATE INDEX with no writers%n%n");
            out.println("| index | table | CREATE INDEX s | population (IndexBuildProgress) s | rows scanned | rows"
                    + " written | heap peak MB (sampled) | note |");
            out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
            for (Build b : quiet) {
                out.println(row(b));
            }
            out.printf("%nTransactional / non-transactional (population sleep 0): %.2fx%n",
                    txBuild.seconds() / plainBuild.seconds());
            BuildObserver.Population quietPopulation = txBuild.population;
            if (quietPopulation == null) {
                out.printf("%nNo population of %s was seen through IndexBuildHooks (no fence was taken?).%n", TX_QUIET);
            } else if (quietPopulation.rowsScanned() != rows || quietPopulation.rowsWritten() != rows) {
                out.printf("%nIndexBuildProgress is off for %s: it reported %,d rows scanned and %,d index rows"
                        + " written (index name '%s'), but the table held %,d rows at the fence and the index"
                        + " holds them (checked below).%n", TX_QUIET, quietPopulation.rowsScanned(),
                        quietPopulation.rowsWritten(), quietPopulation.indexTable(), rows);
            }
            out.flush();

            if (writers > 0) { // --writers 0: the quiet builds only
                // ---- live build
                // Phoenix's MutationState logs its commit-retry decision ("Checking for index updates", "No updates to
                // indexes") at INFO: raised for the live run so stderr shows whether a fence abort was retried.
                logAtInfo("org.apache.phoenix.execute.MutationState");
                observer.startLiveRun();
                Build live;
                Writers w = new Writers(stack, observer, Tables.TX, rows, txRows,
                        // a principal without a keytab only names the connection's user: Phoenix then keys a separate
                        // client (ConnectionQueryServices, metadata cache) on it, as writers in another JVM would have
                        writersOwnClient ? stack.jdbcUrl() + ":benchwriter" : null);
                writersForDiagnosis = w;
                try {
                    w.start(writers);
                    sleepChecking(w, warmupSeconds);
                    w.phase(Phase.BEFORE);
                    observer.phase(Phase.BEFORE);
                    sleepChecking(w, windowSeconds);
                    w.phase(Phase.DURING);
                    observer.phase(Phase.DURING);
                    if (holdAtFence) {
                        observer.holdWritersUntilFence(writers);
                        if (!observer.awaitHeldWriters(60)) {
                            throw new IllegalStateException("writers did not reach their TM commit within 60 s");
                        }
                        progress("%d writers held before their TM commit until the fence", writers);
                    }
                    live = build(stack, observer, TX_LIVE, Tables.TX, "S", new Properties(), writers + " writers");
                    w.phase(Phase.AFTER);
                    observer.phase(Phase.AFTER);
                    sleepChecking(w, windowSeconds);
                    w.phase(Phase.STOPPING);
                    observer.phase(Phase.STOPPING);
                } finally {
                    w.close();
                    observer.endLiveRun();
                }
                if (!w.errors().isEmpty()) {
                    Throwable first = w.errors().get(0);
                    throw new IllegalStateException(w.errors().size() + " writer error(s) other than 523; first: "
                            + first, first);
                }
                out.printf("%n## CREATE INDEX under %d writers (%d-row transactions, random keys)%n%n", writers,
                        txRows);
                out.println("| index | table | CREATE INDEX s | population (IndexBuildProgress) s | rows scanned | rows"
                        + " written | heap peak MB (sampled) | note |");
                out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
                out.println(row(live));
                out.printf("%nLive / quiet build time (transactional): %.2fx; live transactional / quiet"
                        + " non-transactional: %.2fx%n%n", live.seconds() / txBuild.seconds(),
                        live.seconds() / plainBuild.seconds());
                out.println("| window | seconds | commits | commits/s | commit p50 ms | commit p99 ms | TM aborts:"
                        + " fence | TM aborts: write-write conflict | TM aborts: other | 523 seen by writers (fence /"
                        + " conflict / other) |");
                out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
                for (Phase p : new Phase[] {Phase.BEFORE, Phase.DURING, Phase.AFTER}) {
                    Writers.Window win = w.window(p);
                    long fence = observer.aborts(p, AbortReason.FENCE);
                    long conflict = observer.aborts(p, AbortReason.CONFLICT);
                    long other = observer.aborts(p) - fence - conflict;
                    out.printf("| %s | %.1f | %d | %.1f | %.1f | %.1f | %d | %d | %d | %d / %d / %d |%n", p.label,
                            win.seconds(), win.commits.get(), win.commitsPerSecond(), win.percentileMillis(50),
                            win.percentileMillis(99), fence, conflict, other, win.fenceErrors.get(),
                            win.conflictErrors.get(), win.other523.get());
                }
                long fenceAborts = 0;
                long fenceSeen = 0;
                for (Phase p : Phase.values()) {
                    fenceAborts += observer.aborts(p, AbortReason.FENCE);
                    fenceSeen += w.window(p).fenceErrors.get();
                }
                out.printf("%nFence aborts: %d at the TM, %d reached writers as 523; the other %d were retried by"
                        + " Phoenix's commit (MutationState retries once if the connection's cached table lacked the"
                        + " new index).%n", fenceAborts, fenceSeen, fenceAborts - fenceSeen);
                out.flush();
            }

            // ---- verification
            out.printf("%n## Verification (writers stopped)%n%n");
            verify(stack, Tables.PLAIN, PLAIN_QUIET, "V");
            if (sleepRun) {
                verify(stack, Tables.PLAIN, PLAIN_DEFAULT_SLEEP, "S");
            }
            verify(stack, Tables.TX, TX_QUIET, "V");
            if (writers > 0) {
                verify(stack, Tables.TX, TX_LIVE, "S");
            }
            out.printf("%nLoad average at end: %s%n", HeapSampler.loadAverage());
        }
    }

    private void verify(EmbeddedStack stack, String table, String index, String column) throws Exception {
        String result;
        try {
            result = IndexVerifier.verify(BenchCluster.embedded(stack), table, index, column, rows, samples, index.hashCode());
        } catch (IndexVerifier.Mismatch e) {
            out.printf("- %s on %s(%s): DIFFERS%n%n```%n%s%n", index, table, column, e.getMessage());
            Diagnosis.dump(out, stack, table, index, e, writersForDiagnosis, observerForDiagnosis);
            out.printf("```%n");
            out.flush();
            throw e;
        }
        out.printf("- %s on %s(%s): %s%n", index, table, column, result);
        out.flush();
    }

    private Build build(EmbeddedStack stack, BuildObserver observer, String index, String table, String column,
                        Properties props, String note) throws Exception {
        System.gc();
        String sql = "CREATE INDEX " + index + " ON " + table + " (" + column + ") INCLUDE (N)";
        progress("%s (load average %s)", sql, HeapSampler.loadAverage());
        HeapSampler heap = new HeapSampler();
        long since = System.nanoTime();
        long nanos;
        try (Connection c = stack.connect(props); Statement s = c.createStatement()) {
            long t0 = System.nanoTime();
            s.execute(sql);
            nanos = System.nanoTime() - t0;
        } finally {
            heap.stop();
        }
        BuildObserver.Population population = observer.latestPopulation(table, since);
        progress("%s built in %.1f s", index, nanos / 1e9);
        return new Build(index, table, note, nanos, heap.peakMb(), population);
    }

    private static String row(Build b) {
        BuildObserver.Population p = b.population;
        String population = p == null ? "-" : p.populationMillis() < 0 ? "?" : String.format("%.1f",
                p.populationMillis() / 1e3);
        String scanned = p == null ? "-" : String.format("%,d", p.rowsScanned());
        String written = p == null ? "-" : String.format("%,d", p.rowsWritten());
        String committed = p == null || p.committed == null || p.committed ? "" : " (population NOT committed)";
        return String.format("| %s | %s | %.1f | %s | %s | %s | %d | %s%s |", b.index, b.table, b.seconds(),
                population, scanned, written, b.peakHeapMb, b.note, committed);
    }

    /** Sets a log4j 1 (reload4j) logger to INFO, by reflection: the benchmarks do not compile against log4j. */
    private static void logAtInfo(String logger) {
        try {
            Class<?> level = Class.forName("org.apache.log4j.Level");
            Object info = level.getField("INFO").get(null);
            Object target = Class.forName("org.apache.log4j.Logger").getMethod("getLogger", String.class)
                    .invoke(null, logger);
            target.getClass().getMethod("setLevel", level).invoke(target, info);
        } catch (ReflectiveOperationException | LinkageError e) {
            progress("could not raise %s to INFO: %s", logger, e);
        }
    }

    private static void sleepChecking(Writers w, int seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(500, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            w.checkAlive();
        }
    }

    private static void progress(String format, Object... args) {
        System.err.printf("[bench-index] " + format + "%n", args);
    }
}
