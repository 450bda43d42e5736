package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LowWaterMarkAndFenceRegistryTest {

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

    @Test
    void fenceRegistryKeepsTheNewestFencePerTableAndLoadsFromTheStore() throws Exception {
        FenceStore store = FenceStore.inMemory();
        FenceRegistry registry = new FenceRegistry(store);
        registry.load();
        assertEquals(0, registry.size());
        assertFalse(registry.blocks(5, new long[] {1, 2}));
        registry.add(1, 100);
        registry.add(1, 50); // an older fence never lowers the line
        assertEquals(Map.of(1L, 100L), store.loadAll());
        assertTrue(registry.blocks(99, new long[] {2, 1}));
        assertFalse(registry.blocks(101, new long[] {1}));
        assertFalse(registry.blocks(99, new long[] {2, 3}));
        assertFalse(registry.blocks(99, new long[0]));

        FenceRegistry reloaded = new FenceRegistry(store);
        reloaded.load();
        assertEquals(1, reloaded.size());
        assertTrue(reloaded.blocks(99, new long[] {1}));
    }
}
