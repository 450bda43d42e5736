package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.ChaosClientMain;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.cluster.ClusterException;
import io.phoenixtxn.cluster.Installation;
import io.phoenixtxn.cluster.ProcessTable;
import io.phoenixtxn.history.History;
import org.apache.hadoop.hbase.TableName;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * One chaos run end to end: a fresh cluster (ZooKeeper, a TM pair with a short lease, a master, two region servers),
 * the client JVMs, the faults of the plan one step at a time (after each, every client must commit again before the
 * next), the end (everything healed, clients stopped, final reads done), the judgement while the cluster is still
 * up, and the cluster stopped. Whatever happens, no process of the run outlives it: the cluster's and the clients'
 * processes are killed on the way out, and client JVMs also end themselves if this JVM dies.
 */
final class ChaosRun {
    /** The cluster's ZooKeeper session timeout: a killed region server is declared dead after it. */
    static final long ZK_SESSION_TIMEOUT_MS = 10_000;
    static final int REGION_SERVERS = 2;
    static final Duration CLIENTS_READY_MAX = Duration.ofMinutes(5);
    static final Duration RECOVERY_MAX = Duration.ofSeconds(120);
    static final Duration STOP_MAX = Duration.ofMinutes(6);
    /** No new step starts this close to the end (the first pass excepted). */
    static final long END_MARGIN_NANOS = 30_000_000_000L;
    static final long WARM_UP_MS = 5_000;

    private final ChaosOptions options;
    private final Path root;
    private final PrintStream out;

    ChaosRun(ChaosOptions options, Path root, PrintStream out) {
        this.options = options;
        this.root = root;
        this.out = out;
    }

    /** The report; throws if the run could not be set up (no cluster, no clients). */
    ChaosReport run() throws Exception {
        prepareRunDirectory();
        try (PrintStream log = tee(options.out().resolve("nemesis.log"))) {
            Installation installation = Installation.at(root);
            ClusterControl cluster = new ClusterControl(options.base(), options.name(), installation, log);
            Thread cleanup = new Thread(cluster::killLeftovers, "chaos-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            try {
                return runOn(cluster, installation, log);
            } finally {
                cluster.stop();
                Runtime.getRuntime().removeShutdownHook(cleanup);
            }
        }
    }

    private ChaosReport runOn(ClusterControl cluster, Installation installation, PrintStream log) throws Exception {
        log.println("starting cluster " + options.name() + " in " + options.base().resolve(options.name()));
        cluster.start(REGION_SERVERS, clusterSettings());
        RunClock clock = RunClock.startingNow();
        ClientLauncher launcher = new ClientLauncher(installation.java(), installation.jdkFlags(),
                cluster.clientClasspath(), List.of(jarOf(ChaosClientMain.class), jarOf(History.class)),
                cluster.paths().log4j(), cluster.jdbcUrl(), clock.origin(), clientProperties());
        List<FaultRecord> faults = Collections.synchronizedList(new ArrayList<>());
        List<String> runProblems = new ArrayList<>();
        List<String> clusterEvents = new ArrayList<>();
        try (ClientFleet fleet = new ClientFleet(options, clock, launcher, log)) {
            Thread cleanup = new Thread(fleet::close, "chaos-client-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            log.println(RunClock.seconds(clock.now()) + " starting " + options.clients() + " client JVMs");
            fleet.start(CLIENTS_READY_MAX);
            long start = clock.now();
            long end = start + options.duration().toNanos();
            Thread.sleep(WARM_UP_MS); // the clients' steady state before the first fault: part of the run's design
            Nemesis nemesis = new Nemesis(cluster, fleet, launcher, clock, options, new Random(options.seed()), log);
            FaultPlan plan = new FaultPlan(options.faults(), options.seed());
            Random gaps = new Random(options.seed() + 1);
            while (!plan.firstPassDone() || clock.now() < end - END_MARGIN_NANOS) {
                FaultPlan.Step step = plan.next();
                List<FaultRecord> records = runStep(step, nemesis, gaps);
                faults.addAll(records);
                long healed = records.stream().mapToLong(r -> r.healedAt).max().orElse(clock.now());
                // every slot staffed again, so the next fault meets them all; except after a client kill: its
                // successor's setup (fresh tables, half a minute on a loaded machine) overlaps the next faults, which
                // pick among the clients running
                if (!killsClientsOnly(step) && !fleet.awaitFull(RECOVERY_MAX)) {
                    records.get(records.size() - 1).problem("not every client slot had a client past its setup"
                            + " within " + RECOVERY_MAX.toSeconds() + " s after the fault was healed");
                }
                List<ClientGeneration> stuck = fleet.awaitCommitsAfter(healed, RECOVERY_MAX);
                for (ClientGeneration g : stuck) {
                    records.get(records.size() - 1).problem("client " + g.id() + " committed nothing within "
                            + RECOVERY_MAX.toSeconds() + " s after the fault was healed");
                }
                ensureWhole(cluster, clock, log, clusterEvents, "after " + describe(step));
                log.println(RunClock.seconds(clock.now()) + " progress: " + fleet.progress());
                Thread.sleep(2_000 + gaps.nextInt(3_000)); // a quiet gap between steps: the plan's rhythm
            }
            while (clock.now() < end) {
                Thread.sleep(Math.min(10_000, Math.max(1, (end - clock.now()) / 1_000_000)));
                log.println(RunClock.seconds(clock.now()) + " progress: " + fleet.progress());
            }
            ensureWhole(cluster, clock, log, clusterEvents, "at the end");
            long runNanos = clock.now() - start;
            log.println(RunClock.seconds(clock.now()) + " stopping the clients (final reads)");
            fleet.stopAll(STOP_MAX);
            runProblems.addAll(fleet.problems());
            log.println(RunClock.seconds(clock.now()) + " judging");
            HBaseCommitTable commitTable = new HBaseCommitTable(cluster.hbase(),
                    TableName.valueOf(Nemesis.COMMIT_TABLE));
            ChaosReport report = new Judge(options, commitTable::lookup, log).judge(fleet.all(), faults,
                    runProblems, clusterEvents, runNanos);
            Runtime.getRuntime().removeShutdownHook(cleanup);
            return report;
        }
    }

    /** One step: a single fault, or two overlapping ones (the second starts 0.5-3 s after the first). */
    private static List<FaultRecord> runStep(FaultPlan.Step step, Nemesis nemesis, Random gaps)
            throws InterruptedException {
        if (!step.mixed()) {
            return List.of(nemesis.inject(step.faults().get(0), false));
        }
        List<FaultRecord> records = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        long stagger = 500 + gaps.nextInt(2_500);
        for (int i = 0; i < step.faults().size(); i++) {
            FaultKind kind = step.faults().get(i);
            long delay = i * stagger;
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(delay); // the overlap of a mixed step, chosen by the seed
                    records.add(nemesis.inject(kind, true));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "nemesis-" + kind.reportName());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        List<FaultRecord> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparingLong(r -> r.injectedAt));
        return sorted;
    }

    /**
     * Every role up: a role found dead or paused outside a fault (a region server that aborted on its own, say) is
     * brought back and listed as a cluster event.
     */
    private static void ensureWhole(ClusterControl cluster, RunClock clock, PrintStream log, List<String> events,
                                    String when) {
        for (String role : cluster.roles()) {
            ProcessTable.State state = cluster.stateOf(role);
            if (state == ProcessTable.State.UP) {
                continue;
            }
            String event = RunClock.seconds(clock.now()) + " " + role + " was " + state + " " + when;
            try {
                if (state == ProcessTable.State.PAUSED) {
                    cluster.resume(role);
                } else {
                    cluster.restart(role);
                }
                event += "; brought back";
            } catch (ClusterException | RuntimeException e) {
                event += "; could not be brought back: " + e.getMessage();
            }
            events.add(event);
            log.println(event);
        }
    }

    private static boolean killsClientsOnly(FaultPlan.Step step) {
        return step.faults().stream().allMatch(k -> k.group() == FaultKind.Group.CLIENT);
    }

    private static String describe(FaultPlan.Step step) {
        List<String> names = new ArrayList<>();
        step.faults().forEach(k -> names.add(k.reportName()));
        return String.join("+", names);
    }

    /** The cluster's settings for a chaos run (they also go to the clients' hbase-site.xml). */
    Map<String, String> clusterSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        // issue 14: TM failover measured with a 1 s lease
        s.put("phoenix.txn.tm.lease.ms", Long.toString(options.leaseMs()));
        // a killed region server is declared dead after 10 s (the launcher's default is 30 s), still well above a
        // ZooKeeper restart, which every session must outlive
        s.put("zookeeper.session.timeout", Long.toString(ZK_SESSION_TIMEOUT_MS));
        // crashed clients' commits are completed by the survivors' cleaners within the run
        s.put("phoenix.txn.cleaner.interval.ms", "10000");
        return s;
    }

    private static Map<String, String> clientProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("phoenix.transactions.enabled", "true");
        p.put("phoenix.txn.tm.mode", "remote");
        return p;
    }

    private void prepareRunDirectory() throws IOException {
        Path dir = options.out();
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir);
    }

    /** A print stream writing to the run's log file and to this command's output. */
    private PrintStream tee(Path file) throws IOException {
        OutputStream fileOut = Files.newOutputStream(file);
        OutputStream both = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                fileOut.write(b);
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                fileOut.write(b, off, len);
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                fileOut.flush();
                out.flush();
            }

            @Override
            public void close() throws IOException {
                fileOut.close();
            }
        };
        return new PrintStream(both, true, StandardCharsets.UTF_8);
    }

    static Path jarOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
