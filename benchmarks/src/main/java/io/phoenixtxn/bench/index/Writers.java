package io.phoenixtxn.bench.index;

import io.phoenixtxn.bench.tm.LatencyHistogram;
import io.phoenixtxn.stack.EmbeddedStack;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W writer threads, each on its own Phoenix connection (autoCommit off), running transactions of {@code txRows}
 * random-key operations on the transactional table: 20% DELETE, 30% UPSERT of N only (the covered column), 50%
 * UPSERT of V, S and N (both indexed columns move). Commits, latencies and the SQL 523 errors writers see are
 * attributed to the {@link Phase} in force when the commit returned.
 */
final class Writers implements AutoCloseable {
    /** What writers did in one phase. */
    static final class Window {
        final AtomicLong commits = new AtomicLong();
        final AtomicLong fenceErrors = new AtomicLong();
        final AtomicLong conflictErrors = new AtomicLong();
        final AtomicLong other523 = new AtomicLong();
        final LatencyHistogram commitLatency = new LatencyHistogram();
        volatile long startNanos = -1;
        volatile long endNanos = -1;

        synchronized void record(long nanos) {
            commitLatency.record(nanos);
        }

        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }

        double commitsPerSecond() {
            return commits.get() / seconds();
        }

        synchronized double percentileMillis(double p) {
            return commitLatency.percentile(p) / 1e6;
        }
    }

    private final EmbeddedStack stack;
    private final String table;
    private final long keys;
    private final int txRows;
    private final Map<Phase, Window> windows = new EnumMap<>(Phase.class);
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final AtomicLong attempts = new AtomicLong();
    private volatile Phase phase = Phase.WARMUP;
    private volatile boolean stop;
    private ExecutorService pool;
    private final List<Future<?>> running = new ArrayList<>();
    private final BuildObserver observer;
    /** Every transaction that touched a key: its operations, TM calls and outcome (for diagnosing an index). */
    private final Map<Long, ConcurrentLinkedQueue<String>> history = new ConcurrentHashMap<>();
    private final long origin = System.nanoTime();

    /** Non-null: writers connect through this URL (their own Phoenix client and metadata cache). */
    private final String url;

    Writers(EmbeddedStack stack, BuildObserver observer, String table, long keys, int txRows, String url) {
        this.stack = stack;
        this.url = url;
        this.observer = observer;
        this.table = table;
        this.keys = keys;
        this.txRows = txRows;
        for (Phase p : Phase.values()) {
            windows.put(p, new Window());
        }
    }

    void start(int threads) {
        AtomicLong ids = new AtomicLong();
        pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "bench-writer-" + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        windows.get(Phase.WARMUP).startNanos = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            running.add(pool.submit(this::run));
        }
    }

    /** Ends the current phase's window and starts the next one's, at the same instant. */
    void phase(Phase next) {
        long now = System.nanoTime();
        windows.get(phase).endNanos = now;
        windows.get(next).startNanos = now;
        phase = next;
    }

    Window window(Phase p) {
        return windows.get(p);
    }

    List<Throwable> errors() {
        return new ArrayList<>(errors);
    }

    long attempts() {
        return attempts.get();
    }

    /** Fails if a writer died (any error other than SQL 523 stops it). */
    void checkAlive() {
        for (Future<?> f : running) {
            if (f.isDone()) {
                throw new IllegalStateException("A writer stopped early: " + errors.peek(), errors.peek());
            }
        }
    }

    private Void run() throws Exception {
        try (Connection c = url == null ? stack.connect() : java.sql.DriverManager.getConnection(url);
             PreparedStatement delete = c.prepareStatement("DELETE FROM " + table + " WHERE K = ?");
             PreparedStatement updateN = c.prepareStatement("UPSERT INTO " + table + " (K, N) VALUES (?, ?)");
             PreparedStatement move = c.prepareStatement(
                     "UPSERT INTO " + table + " (K, V, S, N) VALUES (?, ?, ?, ?)")) {
            c.setAutoCommit(false);
            ThreadLocalRandom r = ThreadLocalRandom.current();
            long[] touched = new long[txRows];
            StringBuilder ops = new StringBuilder();
            while (!stop) {
                ops.setLength(0);
                int n = 0;
                long t0 = System.nanoTime();
                observer.takeThreadAttempts();
                try {
                    for (int i = 0; i < txRows; i++) {
                        long k = r.nextLong(keys);
                        touched[n++] = k;
                        int op = r.nextInt(10);
                        if (op < 2) {
                            delete.setLong(1, k);
                            delete.executeUpdate();
                            ops.append("DELETE ").append(k).append("; ");
                        } else if (op < 5) {
                            long value = r.nextInt(1_000_000);
                            updateN.setLong(1, k);
                            updateN.setLong(2, value);
                            updateN.executeUpdate();
                            ops.append("UPSERT ").append(k).append(" N=").append(value).append("; ");
                        } else {
                            String v = String.format("w%08x", r.nextInt());
                            String s = String.format("x%08x", r.nextInt());
                            long value = r.nextInt(1_000_000);
                            move.setLong(1, k);
                            move.setString(2, v);
                            move.setString(3, s);
                            move.setLong(4, value);
                            move.executeUpdate();
                            ops.append("UPSERT ").append(k).append(" V=").append(v).append(" S=").append(s)
                                    .append(" N=").append(value).append("; ");
                        }
                    }
                    attempts.incrementAndGet();
                    long t1 = System.nanoTime();
                    c.commit();
                    long took = System.nanoTime() - t1;
                    Window w = windows.get(phase);
                    w.commits.incrementAndGet();
                    w.record(took);
                    remember(touched, n, t0, ops, "committed");
                } catch (SQLException e) {
                    remember(touched, n, t0, ops, "failed " + e.getErrorCode());
                    rollbackQuietly(c);
                    if (e.getErrorCode() != 523) {
                        throw e;
                    }
                    String message = String.valueOf(e.getMessage());
                    Window w = windows.get(phase);
                    if (message.contains("index is being created")) {
                        w.fenceErrors.incrementAndGet();
                    } else if (message.contains("concurrent transaction")) {
                        w.conflictErrors.incrementAndGet();
                    } else {
                        w.other523.incrementAndGet();
                    }
                }
            }
        } catch (Exception | Error e) {
            errors.add(e);
            throw e;
        }
        return null;
    }

    private void remember(long[] touched, int n, long startNanos, CharSequence ops, String outcome) {
        String line = String.format("%s +%.3f s [%s] %s: %s", Thread.currentThread().getName(),
                (startNanos - origin) / 1e9, phase.label, ops, outcome) + " {" + observer.takeThreadAttempts() + "}";
        for (int i = 0; i < n; i++) {
            history.computeIfAbsent(touched[i], x -> new ConcurrentLinkedQueue<>()).add(line);
        }
    }

    /** The writers' transactions that touched key {@code k}, oldest first. */
    List<String> history(long k) {
        ConcurrentLinkedQueue<String> lines = history.get(k);
        return lines == null ? List.of() : new ArrayList<>(lines);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the commit already rolled back what it could; the next transaction starts clean
        }
    }

    @Override
    public void close() throws Exception {
        stop = true;
        if (pool == null) {
            return;
        }
        for (Future<?> f : running) {
            try {
                f.get(2, TimeUnit.MINUTES);
            } catch (java.util.concurrent.ExecutionException e) {
                // recorded in errors()
            }
        }
        pool.shutdownNow();
    }
}
