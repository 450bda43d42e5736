package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.HaltPoint;
import io.phoenixtxn.chaos.client.HaltRecord;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The client JVMs of a run: one per slot at a time (even slots list-append, odd slots bank), each recording its
 * own history. A background monitor follows their history files, notices exits and keeps every slot staffed: a JVM
 * the driver halted, or one that died on its own (a problem the report names), gets a successor on fresh tables and
 * a final-read JVM that completes its history; one whose setup failed is replaced without anything to check.
 *
 * <p>All mutable state of the generations is guarded by this object's monitor; waits are bounded.
 */
final class ClientFleet implements AutoCloseable {
    private static final int MAX_SETUP_FAILURES_IN_A_ROW = 10;

    private final ChaosOptions options;
    private final RunClock clock;
    private final ClientLauncher launcher;
    private final PrintStream log;
    private final Path stopFile;
    private final List<ClientGeneration> all = new ArrayList<>();
    private final ClientGeneration[] current;
    private final int[] setupFailuresInARow;
    private final List<String> problems = new ArrayList<>();
    private final ScheduledExecutorService monitor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-fleet-monitor");
        t.setDaemon(true);
        return t;
    });
    private boolean stopping;

    ClientFleet(ChaosOptions options, RunClock clock, ClientLauncher launcher, PrintStream log) {
        this.options = options;
        this.clock = clock;
        this.launcher = launcher;
        this.log = log;
        this.stopFile = options.out().resolve("stop");
        this.current = new ClientGeneration[options.clients()];
        this.setupFailuresInARow = new int[options.clients()];
    }

    static String workloadOf(int slot) {
        return slot % 2 == 0 ? "list-append" : "bank";
    }

    /** Starts every slot's first client and waits until all are past their setup (bounded). */
    void start(Duration max) throws IOException, InterruptedException {
        Files.deleteIfExists(stopFile);
        synchronized (this) {
            for (int slot = 0; slot < current.length; slot++) {
                spawn(slot);
            }
        }
        monitor.scheduleWithFixedDelay(this::monitorQuietly, 200, 200, TimeUnit.MILLISECONDS);
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (running().size() < current.length) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("only " + running().size() + " of " + current.length
                            + " client JVMs got past their setup within " + max.toSeconds() + " s; see "
                            + options.out().resolve("clients"));
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    private void spawn(int slot) {
        int generation = 1 + (int) all.stream().filter(g -> g.slot == slot).count();
        ClientGeneration g = new ClientGeneration(slot, generation, workloadOf(slot), options.out());
        try {
            Files.createDirectories(g.dir);
            g.startedAt = clock.now();
            g.process = launcher.run(g, options.threads(), options.seed() * 1000 + slot * 100L + generation,
                    stopFile);
            log.println(RunClock.seconds(clock.now()) + " client " + g.id() + " started (pid " + g.process.pid()
                    + ", " + g.workload + " on " + g.table() + ")");
        } catch (IOException e) {
            problem("cannot start client " + g.id() + ": " + e);
            g.state = ClientGeneration.State.SETUP_FAILED;
        }
        all.add(g);
        current[slot] = g;
    }

    private void monitorQuietly() {
        try {
            monitorOnce();
        } catch (RuntimeException | IOException e) {
            log.println("fleet monitor: " + e);
        }
    }

    private synchronized void monitorOnce() throws IOException {
        for (ClientGeneration g : new ArrayList<>(all)) {
            if (g.state == ClientGeneration.State.STARTING) {
                checkReady(g);
            }
            if (g.state == ClientGeneration.State.RUNNING || g.state == ClientGeneration.State.STARTING) {
                g.tail.poll();
                if (!g.process.isAlive()) {
                    exited(g);
                }
            }
            if (g.finalRead != null && g.finalReadStatus == null && !g.finalRead.isAlive()) {
                g.finalReadStatus = g.finalRead.exitValue();
                log.println(RunClock.seconds(clock.now()) + " final read of " + g.id() + " exited with "
                        + g.finalReadStatus);
                if (g.finalReadStatus != 0) {
                    problem("the final read of " + g.id() + " failed (status " + g.finalReadStatus + ", see "
                            + g.finalReadConsole() + "): its acknowledged writes cannot be checked");
                }
            }
        }
        notifyAll();
    }

    /** The client wrote its ready file: past its setup. Its reading of the clock must lie within the driver's. */
    private void checkReady(ClientGeneration g) throws IOException {
        if (!Files.exists(g.readyFile())) {
            return;
        }
        String text = Files.readString(g.readyFile(), StandardCharsets.UTF_8).trim();
        if (text.isEmpty()) {
            return;
        }
        long readyAt = Long.parseLong(text);
        long now = clock.now();
        if (readyAt < g.startedAt || readyAt > now) {
            problem("client " + g.id() + " reads the clock as " + readyAt + " ns, outside the driver's [" + g.startedAt
                    + ", " + now + "]: System.nanoTime() is not one clock for the machine's processes, so histories"
                    + " and fault times cannot be compared");
        }
        g.readyAt = readyAt;
        g.state = ClientGeneration.State.RUNNING;
        setupFailuresInARow[g.slot] = 0;
        log.println(RunClock.seconds(now) + " client " + g.id() + " is past its setup");
    }

    private void exited(ClientGeneration g) throws IOException {
        g.tail.poll();
        g.exitStatus = g.process.exitValue();
        if (g.state == ClientGeneration.State.STARTING) {
            g.state = ClientGeneration.State.SETUP_FAILED;
            log.println(RunClock.seconds(clock.now()) + " client " + g.id() + " exited (" + g.exitStatus
                    + ") before its setup committed; see " + g.console());
            if (++setupFailuresInARow[g.slot] >= MAX_SETUP_FAILURES_IN_A_ROW) {
                problem("slot " + g.slot + ": " + MAX_SETUP_FAILURES_IN_A_ROW + " client setups failed in a row; the"
                        + " slot stays empty (last: " + g.console() + ")");
            } else if (!stopping) {
                spawn(g.slot);
            }
            return;
        }
        if (g.armed != null && Files.exists(g.haltRecord())) {
            g.halted = HaltRecord.read(g.haltRecord());
            g.state = ClientGeneration.State.HALTED;
            log.println(RunClock.seconds(clock.now()) + " client " + g.id() + " halted " + g.halted.point().wireName()
                    + " of transaction " + g.halted.txId() + " at " + RunClock.seconds(g.halted.timeNanos()));
        } else {
            g.state = ClientGeneration.State.EXITED;
            if (!stopping || g.exitStatus != 0) {
                problem("client " + g.id() + " exited with status " + g.exitStatus + (stopping ? "" : " during the"
                        + " run, not asked to") + "; see " + g.console());
            }
        }
        if (g.state == ClientGeneration.State.HALTED || !stopping) {
            g.finalRead = launcher.finalRead(g);
            if (!stopping) {
                spawn(g.slot);
            }
        }
    }

    /** Clients past their setup and still running. */
    synchronized List<ClientGeneration> running() {
        List<ClientGeneration> r = new ArrayList<>();
        for (ClientGeneration g : current) {
            if (g != null && g.state == ClientGeneration.State.RUNNING) {
                r.add(g);
            }
        }
        return r;
    }

    /**
     * A running client chosen at random among those matching {@code filter}, waiting up to {@code max} for one (a
     * slot whose client was just killed runs again once its successor is past its setup); null if none came.
     */
    ClientGeneration randomRunning(Random random, Predicate<ClientGeneration> filter, Duration max)
            throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (true) {
                List<ClientGeneration> r = new ArrayList<>(running().stream().filter(filter).toList());
                if (!r.isEmpty()) {
                    return r.get(random.nextInt(r.size()));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                wait(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(left))));
            }
        }
    }

    /** Waits until every slot has a client past its setup; false after {@code max}. */
    boolean awaitFull(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (running().size() < current.length) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(left))));
            }
            return true;
        }
    }

    /**
     * Arms {@code g}'s halt switch at {@code point} and waits until it halted (its next commit of writes reaches the
     * point); returns its record, or null if it did not halt within {@code max} (the switch stays armed).
     */
    HaltRecord halt(ClientGeneration g, HaltPoint point, Duration max) throws IOException, InterruptedException {
        synchronized (this) {
            g.armed = point;
        }
        Path tmp = g.haltTrigger().resolveSibling("halt-trigger.tmp");
        Files.writeString(tmp, point.wireName(), StandardCharsets.UTF_8);
        Files.move(tmp, g.haltTrigger(), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (g.state != ClientGeneration.State.HALTED) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || g.state == ClientGeneration.State.EXITED) {
                    return null;
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            return g.halted;
        }
    }

    /**
     * Waits until every running client acknowledged a commit invoked at or after {@code time}; returns the clients
     * that did not within {@code max} (empty: all did).
     */
    List<ClientGeneration> awaitCommitsAfter(long time, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (true) {
                List<ClientGeneration> missing = new ArrayList<>();
                for (ClientGeneration g : running()) {
                    if (g.tail.firstCommitInvokedAfter(Math.max(time, g.readyAt)) == null) {
                        missing.add(g);
                    }
                }
                long left = deadline - System.nanoTime();
                if (missing.isEmpty() || left <= 0) {
                    return missing;
                }
                wait(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(left))));
            }
        }
    }

    /** Operations and commits so far, for the progress line. */
    synchronized String progress() {
        long ops = 0;
        long commits = 0;
        for (ClientGeneration g : all) {
            ops += g.tail.operations();
            commits += g.tail.commits();
        }
        return ops + " operations, " + commits + " read-write commits, " + running().size() + " clients running";
    }

    /**
     * Tells every client to stop (the stop file), waits until they did their final reads and exited, and until every
     * final-read JVM of a killed client ended; anything still alive after {@code max} is killed (a problem).
     */
    void stopAll(Duration max) throws IOException, InterruptedException {
        synchronized (this) {
            stopping = true;
        }
        Files.writeString(stopFile, "stop", StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (anyAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                wait(Math.max(1, Math.min(500, TimeUnit.NANOSECONDS.toMillis(left))));
            }
            for (ClientGeneration g : all) {
                if (g.process != null && g.process.isAlive()) {
                    problem("client " + g.id() + " did not end within " + max.toSeconds() + " s of the stop; killed");
                    g.process.destroyForcibly();
                }
                if (g.finalRead != null && g.finalRead.isAlive()) {
                    problem("the final read of " + g.id() + " did not end within " + max.toSeconds() + " s; killed");
                    g.finalRead.destroyForcibly();
                }
            }
        }
        monitor.shutdown();
        monitor.awaitTermination(10, TimeUnit.SECONDS);
        monitorOnce();
    }

    private boolean anyAlive() {
        for (ClientGeneration g : all) {
            if (g.process != null && g.process.isAlive() || g.finalRead != null && g.finalRead.isAlive()
                    || g.finalRead != null && g.finalReadStatus == null) {
                return true;
            }
            if (g.process != null && !g.process.isAlive() && (g.state == ClientGeneration.State.RUNNING
                    || g.state == ClientGeneration.State.STARTING)) {
                return true; // exited, not yet seen by the monitor
            }
        }
        return false;
    }

    synchronized List<ClientGeneration> all() {
        return List.copyOf(all);
    }

    synchronized List<String> problems() {
        return List.copyOf(problems);
    }

    private void problem(String text) {
        problems.add(text);
        log.println(RunClock.seconds(clock.now()) + " PROBLEM: " + text);
    }

    /** Kills every client JVM (a driver ending early). */
    @Override
    public synchronized void close() {
        monitor.shutdownNow();
        for (ClientGeneration g : all) {
            if (g.process != null) {
                g.process.destroyForcibly();
            }
            if (g.finalRead != null) {
                g.finalRead.destroyForcibly();
            }
        }
    }
}
