package io.phoenixtxn.bench.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Times several operations against each other on the same threads: warm-up of each, then rounds in which every
 * operation runs one block on all threads at once, so drift in the machine's load (other builds on a shared box)
 * falls on all of them alike. Every call is timed; each operation's calls form one {@link Stats}.
 */
final class Alternating {
    /** One call of an operation on one thread; {@code i} counts that thread's calls from 0 (warm-up: negative). */
    @FunctionalInterface
    interface Op {
        void run(int i) throws Exception;
    }

    /** Builds an operation's state for one thread (its own connection, statement, ...). */
    @FunctionalInterface
    interface PerThread {
        Op forThread(int thread) throws Exception;
    }

    private final int threads;
    private final Map<String, Op[]> ops = new LinkedHashMap<>();

    Alternating(int threads) {
        this.threads = threads;
    }

    /** A single-threaded comparison. */
    Alternating() {
        this(1);
    }

    Alternating add(String name, PerThread perThread) throws Exception {
        Op[] perThreadOps = new Op[threads];
        for (int t = 0; t < threads; t++) {
            perThreadOps[t] = perThread.forThread(t);
        }
        ops.put(name, perThreadOps);
        return this;
    }

    /** Runs {@code warmup} calls of each per thread, then {@code calls} per thread in {@code rounds} blocks. */
    List<Stats> run(int warmup, int calls, int rounds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (Op[] op : ops.values()) {
                block(pool, op, -warmup, 0, null);
            }
            int block = Math.max(1, calls / Math.max(1, rounds));
            Map<String, long[][]> nanos = new LinkedHashMap<>();
            Map<String, Long> wall = new LinkedHashMap<>();
            ops.keySet().forEach(name -> {
                nanos.put(name, new long[threads][calls]);
                wall.put(name, 0L);
            });
            for (int done = 0; done < calls; done += block) {
                int end = Math.min(calls, done + block);
                for (Map.Entry<String, Op[]> op : ops.entrySet()) {
                    long started = System.nanoTime();
                    block(pool, op.getValue(), done, end, nanos.get(op.getKey()));
                    wall.merge(op.getKey(), System.nanoTime() - started, Long::sum);
                }
            }
            List<Stats> stats = new ArrayList<>();
            for (String name : ops.keySet()) {
                long[] all = new long[threads * calls];
                for (int t = 0; t < threads; t++) {
                    System.arraycopy(nanos.get(name)[t], 0, all, t * calls, calls);
                }
                stats.add(Stats.of(name, all, wall.get(name)));
            }
            return stats;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Calls {@code from} (inclusive) to {@code to} of one operation on every thread at once; times them if asked. */
    private void block(ExecutorService pool, Op[] op, int from, int to, long[][] nanos) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                go.await();
                for (int i = from; i < to; i++) {
                    long begin = System.nanoTime();
                    op[thread].run(i);
                    if (nanos != null) {
                        nanos[thread][i] = System.nanoTime() - begin;
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get();
        }
    }
}
