package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link LowWaterMark} only rises, also under concurrent raises. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LowWaterMarkTest {

    @Test
    void lowWaterMarkOnlyRises() {
        LowWaterMark lwm = new LowWaterMark();
        assertEquals(0, lwm.get());
        lwm.raiseTo(10);
        lwm.raiseTo(5);
        assertEquals(10, lwm.get());
        lwm.raiseTo(10);
        lwm.raiseTo(11);
        assertEquals(11, lwm.get());
    }

    @Test
    void lowWaterMarkEndsAtTheMaximumOfConcurrentRaises() throws Exception {
        LowWaterMark lwm = new LowWaterMark();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int offset = t;
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 100_000; i++) {
                        lwm.raiseTo((long) i * threads + offset);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(20, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(99_999L * threads + threads - 1, lwm.get());
    }
}
