package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimestampOracleTest {
    static final long MILLIS = 1_717_200_000_000L;

    @Test
    void rejectsNonPositiveReservationAndUseBeforeInitialize() throws Exception {
        assertThrows(IllegalArgumentException.class,
                () -> new TimestampOracle(Clock.SYSTEM, new InMemoryTimestampStorage(), 0));
        assertThrows(IllegalArgumentException.class,
                () -> new TimestampOracle(Clock.SYSTEM, new InMemoryTimestampStorage(), -5));
        TimestampOracle oracle = new TimestampOracle(Clock.SYSTEM, new InMemoryTimestampStorage(), 10);
        IllegalStateException e = assertThrows(IllegalStateException.class, oracle::next);
        assertTrue(e.getMessage().contains("initialize"), e.getMessage());
    }

    @Test
    void followsTheWallClockWhenItCan() throws Exception {
        ManualClock clock = new ManualClock(MILLIS);
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        TimestampOracle oracle = new TimestampOracle(clock, storage, 1000);
        assertEquals(0, oracle.initialize(), "a fresh storage has no previous epoch");
        assertEquals(0, oracle.epochBase());
        assertEquals(TimestampLayout.firstSlotOfMillis(MILLIS), oracle.next());
        assertEquals(TimestampLayout.firstSlotOfMillis(MILLIS) + TimestampLayout.SLOT_WIDTH, oracle.next());
        clock.advance(5);
        assertEquals(TimestampLayout.firstSlotOfMillis(MILLIS + 5), oracle.next());
        assertEquals(oracle.last(), TimestampLayout.firstSlotOfMillis(MILLIS + 5));
        // The reservation is durable before anything from it is issued.
        assertTrue(storage.getMaxTimestamp() >= oracle.last());
        assertEquals(storage.getMaxTimestamp(), oracle.reservedMax());
        // Phoenix reads wall-clock milliseconds from the id.
        assertEquals(MILLIS + 5, TimestampLayout.millisOf(oracle.last()));
    }

    @Test
    void runsAheadOfAFrozenClockThroughSlotsAndMilliseconds() throws Exception {
        ManualClock clock = new ManualClock(MILLIS);
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        TimestampOracle oracle = new TimestampOracle(clock, storage, 1); // forces many reservations
        oracle.initialize();
        long previous = -1;
        int n = (int) (TimestampLayout.SLOTS_PER_MILLI * 5 + 17);
        for (int i = 0; i < n; i++) {
            long ts = oracle.next();
            assertTrue(TimestampLayout.isSlotStart(ts), TimestampLayout.describe(ts));
            if (previous >= 0) {
                assertEquals(TimestampLayout.nextSlotStart(previous), ts, "no slot may be skipped or reused");
            }
            assertTrue(ts <= storage.getMaxTimestamp(), "issued beyond the durable reservation");
            previous = ts;
        }
        // Five milliseconds of slots borrowed from the future while the clock stood still.
        assertEquals(MILLIS + 5, TimestampLayout.millisOf(previous));
        assertEquals(17 - 1, TimestampLayout.slotIndexOf(previous));
    }

    @Test
    void neverGoesBackwardsWhenTheClockStepsBack() throws Exception {
        ManualClock clock = new ManualClock(MILLIS + 1_000);
        TimestampOracle oracle = new TimestampOracle(clock, new InMemoryTimestampStorage(), 50);
        oracle.initialize();
        long high = oracle.next();
        assertEquals(TimestampLayout.firstSlotOfMillis(MILLIS + 1_000), high);
        clock.set(MILLIS); // NTP stepped the clock back one second
        long previous = high;
        for (int i = 0; i < 3000; i++) {
            long ts = oracle.next();
            assertTrue(ts > previous, "went backwards after a clock step");
            assertTrue(TimestampLayout.isSlotStart(ts));
            previous = ts;
        }
        // When the wall clock overtakes the oracle again, the oracle follows it.
        clock.set(MILLIS + 2_000);
        assertEquals(TimestampLayout.firstSlotOfMillis(MILLIS + 2_000), oracle.next());
    }

    @Test
    void strictlyIncreasingAcrossThreads() throws Exception {
        ManualClock clock = new ManualClock(MILLIS); // frozen: every timestamp comes from nextSlotStart
        TimestampOracle oracle = new TimestampOracle(clock, new InMemoryTimestampStorage(), 1);
        oracle.initialize();
        int threads = 8;
        int perThread = 40_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    long[] out = new long[perThread];
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        out[i] = oracle.next();
                        if (i % 1000 == 0) {
                            clock.advance(i % 3000 == 0 ? -1 : 1); // a jittery clock on top
                        }
                    }
                    return out;
                }));
            }
            start.countDown();
            long[] all = new long[threads * perThread];
            int k = 0;
            for (Future<long[]> f : futures) {
                long[] mine = f.get(50, TimeUnit.SECONDS);
                for (int i = 1; i < mine.length; i++) {
                    assertTrue(mine[i] > mine[i - 1], "a thread saw the oracle go backwards");
                }
                System.arraycopy(mine, 0, all, k, mine.length);
                k += mine.length;
            }
            Arrays.sort(all);
            for (int i = 1; i < all.length; i++) {
                assertTrue(all[i] > all[i - 1], "timestamp issued twice: " + TimestampLayout.describe(all[i]));
                assertTrue(TimestampLayout.isSlotStart(all[i]));
            }
            assertTrue(all[all.length - 1] <= oracle.reservedMax());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void monotonicAcrossRestartEvenWithAClockThatWentBack() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        ManualClock clock1 = new ManualClock(MILLIS);
        TimestampOracle first = new TimestampOracle(clock1, storage, 2);
        first.initialize();
        long maxIssued = 0;
        for (int i = 0; i < 5_000; i++) {
            maxIssued = Math.max(maxIssued, first.next());
        }
        // The replacement starts on a machine whose clock is a minute behind.
        ManualClock clock2 = new ManualClock(MILLIS - 60_000);
        TimestampOracle second = new TimestampOracle(clock2, storage, 2);
        long epochBase = second.initialize();
        assertTrue(epochBase >= maxIssued, "epoch base below a timestamp the first oracle issued");
        assertEquals(epochBase, second.epochBase());
        long previous = maxIssued;
        for (int i = 0; i < 5_000; i++) {
            long ts = second.next();
            assertTrue(ts > previous && ts > epochBase, "restart reissued an old timestamp");
            previous = ts;
        }
    }

    @Test
    void aSecondOracleOnTheSameStorageMakesTheFirstLosePrimacy() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        ManualClock clock = new ManualClock(MILLIS);
        TimestampOracle first = new TimestampOracle(clock, storage, 1);
        first.initialize();
        long lastOfFirst = first.next();
        long reservedByFirst = first.reservedMax();

        TimestampOracle second = new TimestampOracle(clock, storage, 1);
        assertEquals(reservedByFirst, second.initialize());
        long firstOfSecond = second.next();
        assertTrue(firstOfSecond > reservedByFirst);

        // The first oracle's reservation ran out (clock moved past it): renewing it must fail, not overlap.
        clock.advance(2);
        LostPrimacyException e = assertThrows(LostPrimacyException.class, first::next);
        assertTrue(e.getMessage().contains("no longer primary"), e.getMessage());
        assertTrue(e instanceof TmException);
        // ... every time.
        assertThrows(LostPrimacyException.class, first::next);
        assertTrue(lastOfFirst <= reservedByFirst && first.last() <= reservedByFirst);
        // The second one is unaffected.
        long ts = second.next();
        assertTrue(ts > firstOfSecond);
    }

    @Test
    void theFirstOracleCannotIssueBeyondItsReservationAfterLosingPrimacy() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        ManualClock clock = new ManualClock(MILLIS); // frozen
        TimestampOracle first = new TimestampOracle(clock, storage, 1);
        first.initialize();
        long reservedByFirst = first.reservedMax();
        TimestampOracle second = new TimestampOracle(clock, storage, 1);
        long base = second.initialize();
        long firstOfSecond = second.next();
        // The old primary may use up what it had reserved, but every timestamp stays at or below the base of the
        // new epoch, and the first renewal fails.
        int issued = 0;
        while (true) {
            long ts;
            try {
                ts = first.next();
            } catch (LostPrimacyException expected) {
                break;
            }
            assertTrue(ts <= reservedByFirst && ts <= base && ts < firstOfSecond);
            assertTrue(++issued < 10_000, "the old oracle never lost primacy");
        }
        assertTrue(issued <= TimestampLayout.SLOTS_PER_MILLI + 1, "issued " + issued);
    }

    @Test
    void extendIfBelowRenewsAheadOfTime() throws Exception {
        ManualClock clock = new ManualClock(MILLIS);
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        TimestampOracle oracle = new TimestampOracle(clock, storage, 10); // 10 ms = 10,000,000 units
        oracle.initialize();
        oracle.next();
        long before = oracle.reservedMax();
        clock.advance(6);
        oracle.next(); // 4 ms of headroom left, below half a reservation
        long headroom = oracle.reservedMax() - oracle.last();
        assertEquals(4 * TimestampLayout.UNITS_PER_MILLI, headroom);
        oracle.extendIfBelow(headroom); // exactly enough: nothing to do
        assertEquals(before, oracle.reservedMax());
        assertEquals(before, storage.getMaxTimestamp());
        oracle.extendIfBelow(headroom + 1); // not enough: renew now, not in next()
        assertTrue(oracle.reservedMax() > before);
        assertTrue(oracle.reservedMax() - oracle.last() >= 10 * TimestampLayout.UNITS_PER_MILLI);
        assertEquals(storage.getMaxTimestamp(), oracle.reservedMax());
    }

    /**
     * A requested headroom above half a reservation is honoured even while the current headroom is still above
     * half a reservation (extendReservation's early return once ignored the caller's headroom).
     */
    @Test
    void extendIfBelowHonoursTheRequestedHeadroom() throws Exception {
        ManualClock clock = new ManualClock(TimestampOracleTest.MILLIS);
        TimestampOracle oracle = new TimestampOracle(clock, new InMemoryTimestampStorage(), 10);
        oracle.initialize();
        oracle.next();
        long headroom = oracle.reservedMax() - oracle.last(); // 10 ms
        oracle.extendIfBelow(headroom + TimestampLayout.UNITS_PER_MILLI);
        assertTrue(oracle.reservedMax() - oracle.last() >= headroom + TimestampLayout.UNITS_PER_MILLI,
                "asked for more headroom, got none");
    }

    @Test
    void extendIfBelowDetectsLostPrimacy() throws Exception {
        ManualClock clock = new ManualClock(MILLIS);
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        TimestampOracle first = new TimestampOracle(clock, storage, 10);
        first.initialize();
        first.next();
        new TimestampOracle(clock, storage, 10).initialize();
        clock.advance(6);
        first.next(); // still inside its own reservation
        assertThrows(LostPrimacyException.class, () -> first.extendIfBelow(5 * TimestampLayout.UNITS_PER_MILLI));
    }

    @Test
    void storageFailuresReachTheCaller() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        TimestampStorage flaky = new TimestampStorage() {
            @Override
            public long getMaxTimestamp() {
                return 0;
            }

            @Override
            public boolean compareAndSet(long expected, long newMax) throws TmException {
                if (calls.incrementAndGet() > 1) {
                    throw new TmException("ZooKeeper unavailable");
                }
                return true;
            }
        };
        ManualClock clock = new ManualClock(MILLIS);
        TimestampOracle oracle = new TimestampOracle(clock, flaky, 1);
        oracle.initialize();
        oracle.next();
        clock.advance(3);
        TmException e = assertThrows(TmException.class, oracle::next);
        assertFalse(e instanceof LostPrimacyException);
        assertEquals("ZooKeeper unavailable", e.getMessage());
    }
}
