package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * F7 (design.md sec. 4.11): a master that fails or does not answer costs routed statements at most one bounded wait
 * per table and failure period; an unknown switch routes to the regular path; the soundness re-read never reuses an
 * earlier read.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FastPathSwitchCacheTest {
    private static final TableName T = TableName.valueOf("T");
    private static final long TTL = 5_000;
    private static final long FAILURE_TTL = 2_000;
    private static final long READ_TIMEOUT = 100;

    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicInteger reads = new AtomicInteger();
    private final CountDownLatch masterAnswers = new CountDownLatch(1);
    private FastPathSwitchCache cache;

    @AfterEach
    void close() {
        masterAnswers.countDown();
        if (cache != null) {
            cache.close();
        }
    }

    @Test
    void aFailingMasterIsAskedOncePerFailurePeriodAndTheTableTakesTheRegularPath() {
        cache = new FastPathSwitchCache(table -> {
            reads.incrementAndGet();
            throw new IOException("master down (test)");
        }, TTL, FAILURE_TTL, READ_TIMEOUT, now::get);
        assertFalse(cache.isEnabled(T), "unknown is off: the regular path");
        for (int i = 0; i < 100; i++) {
            assertFalse(cache.isEnabled(T));
        }
        assertEquals(1, reads.get(), "the failure is remembered: no master call per statement");
        now.addAndGet(FAILURE_TTL);
        assertFalse(cache.isEnabled(T));
        assertEquals(2, reads.get(), "asked again after the failure period");
        assertEquals(FastPathSwitchCache.State.UNKNOWN, cache.readNow(T));
    }

    @Test
    void aHangingMasterHoldsAStatementAtMostTheReadTimeoutAndOnlyOneReadWaitsOnIt() throws Exception {
        cache = new FastPathSwitchCache(table -> {
            reads.incrementAndGet();
            try {
                masterAnswers.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            return true;
        }, TTL, FAILURE_TTL, READ_TIMEOUT, now::get);
        long started = System.nanoTime();
        assertFalse(cache.isEnabled(T), "no answer within the timeout: unknown, the regular path");
        for (int i = 0; i < 100; i++) {
            assertFalse(cache.isEnabled(T), "within the failure period: no wait at all");
        }
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(waitedMs < 10 * READ_TIMEOUT, "101 statements waited " + waitedMs + " ms in all");
        assertEquals(1, reads.get(), "one read in flight");

        assertEquals(FastPathSwitchCache.State.UNKNOWN, cache.readNow(T), "the soundness read is bounded too");
        assertEquals(2, reads.get(), "and is a read of its own, begun after the call");

        masterAnswers.countDown(); // the late answer still becomes the belief
        awaitNoReadInFlight();
        assertTrue(cache.isEnabled(T));
        assertEquals(2, reads.get());
    }

    @Test
    void aLateAnswerStartedBeforeARefusalDoesNotOverrideIt() throws Exception {
        CountDownLatch readStarted = new CountDownLatch(1);
        cache = new FastPathSwitchCache(table -> {
            reads.incrementAndGet();
            readStarted.countDown();
            try {
                masterAnswers.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            return true;
        }, TTL, FAILURE_TTL, READ_TIMEOUT, now::get);
        assertFalse(cache.isEnabled(T));
        readStarted.await();
        now.addAndGet(1);
        cache.refused(T); // a FENCED refusal after the read began
        masterAnswers.countDown();
        awaitNoReadInFlight(); // the late "on" has arrived
        now.addAndGet(FAILURE_TTL - 2); // still inside the refusal's TTL and past nothing else
        assertFalse(cache.isEnabled(T), "the refusal stands");
        assertEquals(1, reads.get());
    }

    private void awaitNoReadInFlight() {
        while (cache.readInFlight(T)) {
            Thread.onSpinWait(); // a condition, bounded by the test's timeout
        }
    }
}
