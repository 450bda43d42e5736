package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.OpType;
import io.phoenixtxn.history.record.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a workload through JDBC and records its history: the setup, then client threads (each with its own
 * connection, spread round-robin over the connection sources, e.g. two Phoenix connection services or two
 * cluster URLs) until the duration or the operation budget runs out, then the final read.
 *
 * <p>Recording rules (Jepsen's): every operation is invoked before it starts and completed after it ends, as
 * {@code ok}, {@code fail} or {@code info} by {@link Outcomes}. After an {@code info} the thread closes its
 * connection and continues as a new process (process + threads), so a process never has two operations whose
 * order is unknown. A client stuck in a call past the end (a partitioned server) is abandoned: its operation stays
 * in flight and the history calls it unknown. Connections that cannot be opened are retried until the end.
 */
public final class WorkloadRunner {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadRunner.class);
    /** The process of the setup and the final read. */
    public static final int CONTROL_PROCESS = -1;

    private final Workload workload;
    private final Config config;
    private final Recorder recorder;
    private final AtomicBoolean stop = new AtomicBoolean();
    /** Pause of a client thread after an operation failed for another reason than a conflict. */
    static final long UNAVAILABLE_BACKOFF_MS = 20;

    /**
     * @param duration       how long clients run (null: until the operation budget is spent)
     * @param maxOps         operations in all, at most (0: no limit)
     * @param finalReadFor   how long the final read is retried
     * @param stopGrace      how long to wait for clients still in a call at the end before abandoning them
     */
    public record Config(List<ConnectionSource> sources, int threads, Duration duration, long maxOps, long seed,
                         Duration finalReadFor, Duration stopGrace) {
        public Config {
            sources = List.copyOf(sources);
            if (sources.isEmpty() || threads < 1) {
                throw new IllegalArgumentException("need at least one connection source and one thread");
            }
            if (duration == null && maxOps <= 0) {
                throw new IllegalArgumentException("bound the run: a duration or an operation budget");
            }
            Objects.requireNonNull(finalReadFor, "finalReadFor");
            Objects.requireNonNull(stopGrace, "stopGrace");
        }

        public static Config of(List<ConnectionSource> sources, int threads, Duration duration, long maxOps) {
            return new Config(sources, threads, duration, maxOps, System.nanoTime(), Duration.ofSeconds(60),
                    Duration.ofSeconds(30));
        }
    }

    public WorkloadRunner(Workload workload, Config config, Recorder recorder) {
        this.workload = workload;
        this.config = config;
        this.recorder = recorder;
    }

    /** Setup, clients, final read; returns the history (also readable from the recorder meanwhile). */
    public History run() throws SQLException, InterruptedException {
        setUp();
        runClients();
        finalRead();
        History history = recorder.history();
        LOG.info("{} run recorded {} operations: {}", workload.name(), history.ops().size(), history.counts());
        return history;
    }

    private void setUp() throws SQLException {
        try (Connection c = config.sources().get(0).open()) {
            c.setAutoCommit(false);
            List<Mop> initial = workload.setUp(c);
            if (!initial.isEmpty()) {
                recorder.invoke(CONTROL_PROCESS, Names.SETUP, initial);
                recorder.ok(CONTROL_PROCESS, initial);
            }
        }
    }

    /**
     * Ends the clients' phase early, from any thread: each client finishes the operation it is in and stops; then
     * the final read runs as usual (a run whose end is decided by someone else, e.g. a chaos driver).
     */
    public void requestStop() {
        stop.set(true);
    }

    private void runClients() throws InterruptedException {
        AtomicBoolean stop = this.stop;
        AtomicLong budget = new AtomicLong(config.maxOps() > 0 ? config.maxOps() : Long.MAX_VALUE);
        long deadline = config.duration() == null ? Long.MAX_VALUE
                : System.nanoTime() + config.duration().toNanos();
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < config.threads(); t++) {
            Client client = new Client(t, stop, budget, deadline);
            Thread thread = new Thread(client, workload.name() + "-client-" + t);
            thread.setDaemon(true);
            clients.add(thread);
            thread.start();
        }
        for (Thread thread : clients) {
            joinUntil(thread, deadline);
        }
        stop.set(true);
        long graceEnd = System.nanoTime() + config.stopGrace().toNanos();
        for (Thread thread : clients) {
            if (!joinUntil(thread, graceEnd)) {
                LOG.warn("{} is still in a call {} s after the end; abandoned, its operation stays unknown",
                        thread.getName(), config.stopGrace().toSeconds());
            }
        }
    }

    /** Waits for {@code thread} until {@code deadline} (System.nanoTime); true if it ended. */
    private static boolean joinUntil(Thread thread, long deadline) throws InterruptedException {
        if (deadline == Long.MAX_VALUE) {
            thread.join();
            return true;
        }
        while (thread.isAlive()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedJoin(thread, left);
        }
        return true;
    }

    /** One client thread: its own connection and process, operations until told to stop. */
    private final class Client implements Runnable {
        private final int thread;
        private final AtomicBoolean stop;
        private final AtomicLong budget;
        private final long deadline;
        private final Random random;
        private int process;
        private Connection connection;

        Client(int thread, AtomicBoolean stop, AtomicLong budget, long deadline) {
            this.thread = thread;
            this.stop = stop;
            this.budget = budget;
            this.deadline = deadline;
            this.random = new Random(config.seed() * 31 + thread);
            this.process = thread;
        }

        @Override
        public void run() {
            try {
                while (!stop.get() && System.nanoTime() < deadline && budget.getAndDecrement() > 0) {
                    if (!connected()) {
                        return;
                    }
                    runOne(workload.next(random));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                close();
            }
        }

        private void runOne(Invocation invocation) throws InterruptedException {
            recorder.invoke(process, invocation.f(), invocation.value());
            Session session = new Session(connection);
            try {
                recorder.ok(process, workload.apply(session, invocation));
            } catch (OperationNotApplied e) {
                recorder.fail(process, e.getMessage());
                rollback();
            } catch (SQLException | RuntimeException e) {
                if (Outcomes.classify(e, session.writeCommitStarted()) == OpType.FAIL) {
                    recorder.fail(process, Outcomes.describe(e));
                    rollback();
                    if (!Outcomes.isConflict(e)) {
                        // an unavailable system fails fast (no TM, no region): without a pause a thread would spin
                        // through thousands of failed operations a second, starving the machine it measures
                        Thread.sleep(UNAVAILABLE_BACKOFF_MS);
                    }
                } else {
                    recorder.info(process, Outcomes.describe(e));
                    close();
                    process += config.threads();
                }
            }
        }

        /** Opens this thread's connection if it has none, retrying until the end; false if the run ended. */
        private boolean connected() throws InterruptedException {
            ConnectionSource source = config.sources().get(thread % config.sources().size());
            while (connection == null) {
                try {
                    Connection c = source.open();
                    c.setAutoCommit(false);
                    connection = c;
                } catch (SQLException | RuntimeException e) {
                    LOG.warn("client {} cannot connect to {}: {}; retrying", thread, source, e.toString());
                    if (stop.get() || System.nanoTime() >= deadline) {
                        return false;
                    }
                    Thread.sleep(500); // back-off before reconnecting, not a test interleaving
                }
            }
            return true;
        }

        private void rollback() {
            try {
                connection.rollback();
            } catch (SQLException | RuntimeException e) {
                close(); // a connection that cannot roll back is not trusted with the next operation
            }
        }

        private void close() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException | RuntimeException ignored) {
                    // the operation's outcome is already recorded; a new connection follows
                }
                connection = null;
            }
        }
    }

    /** The final read on a fresh connection, retried (each attempt recorded) until it succeeds or time is up. */
    private void finalRead() throws InterruptedException {
        long end = System.nanoTime() + config.finalReadFor().toNanos();
        int attempt = 0;
        while (true) {
            attempt++;
            Invocation invocation = workload.finalRead();
            recorder.invoke(CONTROL_PROCESS, invocation.f(), invocation.value());
            try (Connection c = config.sources().get(0).open()) {
                c.setAutoCommit(false);
                recorder.ok(CONTROL_PROCESS, workload.apply(new Session(c), invocation));
                return;
            } catch (SQLException | RuntimeException | OperationNotApplied e) {
                recorder.fail(CONTROL_PROCESS, Outcomes.describe(e));
                LOG.warn("final read attempt {} failed: {}", attempt, e.toString());
                if (System.nanoTime() >= end) {
                    LOG.error("no final read within {} s: acknowledged writes cannot be checked",
                            config.finalReadFor().toSeconds());
                    return;
                }
                Thread.sleep(1000); // back-off while the cluster recovers
            }
        }
    }
}
