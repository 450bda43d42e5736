package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StripeLockTest {
    /** A stripe with two plain fields that only agree if every update ran alone. */
    private static final class Counter extends StripeLock {
        long a;
        long b;
    }

    @Test
    void moreThreadsThanCoresNeverInterleaveInsideTheLock() throws Exception {
        Counter counter = new Counter();
        int threads = 4 * Runtime.getRuntime().availableProcessors() + 4;
        int perThread = 50_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        counter.lock();
                        try {
                            long seen = counter.a;
                            counter.a = seen + 1;
                            if (i % 64 == 0) {
                                Thread.yield(); // a holder descheduled inside its section
                            }
                            counter.b = seen + 1;
                        } finally {
                            counter.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals((long) threads * perThread, counter.a, "an increment was lost: two holders at once");
        assertEquals(counter.a, counter.b);
    }
}
