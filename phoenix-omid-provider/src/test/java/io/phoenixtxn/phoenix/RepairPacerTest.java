package io.phoenixtxn.phoenix;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RepairPacerTest {

    @Test
    void theFirstAskIsDueThenOncePerSpacing() {
        RepairPacer pacer = new RepairPacer(100, 1_000);
        assertTrue(pacer.due(1_000));
        assertFalse(pacer.due(1_000));
        assertFalse(pacer.due(1_099));
        assertTrue(pacer.due(1_100));
        assertFalse(pacer.due(1_150));
        assertTrue(pacer.due(5_000), "a long pause: due at once");
    }

    @Test
    void worksAcrossTheWrapOfNanoTime() {
        RepairPacer pacer = new RepairPacer(100, Long.MAX_VALUE - 10);
        assertTrue(pacer.due(Long.MAX_VALUE - 10));
        assertFalse(pacer.due(Long.MAX_VALUE + 50)); // wrapped: 60 ns later
        assertTrue(pacer.due(Long.MAX_VALUE + 90));
    }

    @Test
    void oneOfManyConcurrentAskersWins() throws Exception {
        RepairPacer pacer = new RepairPacer(1_000, 0);
        AtomicInteger due = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] askers = new Thread[8];
        for (int i = 0; i < askers.length; i++) {
            askers[i] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (pacer.due(500)) {
                    due.incrementAndGet();
                }
            });
            askers[i].start();
        }
        go.countDown();
        for (Thread t : askers) {
            t.join();
        }
        assertEquals(1, due.get());
    }
}
