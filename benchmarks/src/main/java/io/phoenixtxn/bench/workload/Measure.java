package io.phoenixtxn.bench.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs an operation on N threads: warm-up, then a measured phase whose every call is timed. */
final class Measure {
    /** One timed operation of one thread; {@code i} counts from 0 within the phase. */
    @FunctionalInterface
    interface Op {
        void run(int thread, int i) throws Exception;
    }

    private Measure() {
    }

    static Stats run(String name, int threads, int warmup, int ops, Op op) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            phase(pool, threads, warmup, op, null);
            long[][] nanos = new long[threads][ops];
            long start = System.nanoTime();
            phase(pool, threads, ops, op, nanos);
            long wall = System.nanoTime() - start;
            long[] all = new long[threads * ops];
            for (int t = 0; t < threads; t++) {
                System.arraycopy(nanos[t], 0, all, t * ops, ops);
            }
            return Stats.of(name, all, wall);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void phase(ExecutorService pool, int threads, int ops, Op op, long[][] nanos) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < ops; i++) {
                    long begin = System.nanoTime();
                    op.run(thread, nanos == null ? -1 - i : i);
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
