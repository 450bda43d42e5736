package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The local version clock: numbers inside TM slots, never backwards, fresh slots reserved ahead of need. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalVersionClockTest {
    private static final long SLOT = TimestampLayout.firstSlotOfMillis(1_700_000_000_000L);
    private static final int FAST_PATH_VERSIONS_PER_SLOT =
            (int) (TimestampLayout.FAST_PATH_LAST_OFFSET - TimestampLayout.FAST_PATH_FIRST_OFFSET + 1);

    @Test
    void aClockThatNeverSawATimestampNumbersNothing() {
        LocalVersionClock clock = new LocalVersionClock(ScriptedTimestamps.immediate(SLOT));
        assertEquals(LocalVersionClock.NONE, clock.next());
    }

    @Test
    void versionsFollowTheNewestTimestampSeenInsideItsSlot() {
        LocalVersionClock clock = new LocalVersionClock(ScriptedTimestamps.down());
        clock.bump(SLOT);
        assertEquals(SLOT + 50, clock.next());
        assertEquals(SLOT + 51, clock.next());
        clock.bump(SLOT + 1); // an older value (a checkpoint): ignored
        assertEquals(SLOT + 52, clock.next());
        long reader = TimestampLayout.nextSlotStart(SLOT);
        clock.bump(reader);
        long next = clock.next();
        assertEquals(reader + 50, next, "above the reader's start, in the reader's slot");
        assertTrue(TimestampLayout.isFastPathVersion(next));
        assertTrue(next < TimestampLayout.nextSlotStart(reader), "below every later TM timestamp");
    }

    /**
     * A TM client that throws instead of answering with a failed future (a bug, a closing connection) must not fail
     * the fast-path write that happened to ask for a fresh slot: the clock numbers from its slot as long as it can.
     */
    @Test
    void aTimestampSourceThatThrowsNeverFailsADrawThatItsSlotCanNumber() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        LocalVersionClock clock = new LocalVersionClock(() -> {
            asked.incrementAndGet();
            throw new IllegalStateException("TM client closed (test)");
        });
        clock.bump(SLOT);
        for (int i = 0; i < FAST_PATH_VERSIONS_PER_SLOT; i++) {
            assertEquals(SLOT + 50 + i, clock.next());
        }
        assertTrue(asked.get() > 0, "it asked for a fresh slot from half the slot on");
        assertEquals(LocalVersionClock.NONE, clock.next(), "no fresh slot: no version, and no exception");
    }

    @Test
    void aUsedUpSlotContinuesInAFreshReservedOneOrNumbersNothing() {
        ScriptedTimestamps tm = ScriptedTimestamps.immediate(SLOT);
        tm.switchTo(ScriptedTimestamps.Mode.DOWN);
        LocalVersionClock clock = new LocalVersionClock(tm);
        clock.bump(SLOT);
        for (int i = 0; i < FAST_PATH_VERSIONS_PER_SLOT; i++) {
            assertEquals(SLOT + 50 + i, clock.next());
        }
        assertEquals(LocalVersionClock.NONE, clock.next(), "no TM, nothing reserved");
        tm.switchTo(ScriptedTimestamps.Mode.IMMEDIATE);
        long fresh = tm.peek();
        assertEquals(fresh + 50, clock.next(), "a TM in the same process answers at once");
    }

    @Test
    void slotsReservedBeforeTheClockMovedPastThemAreNeverUsed() {
        ScriptedTimestamps tm = ScriptedTimestamps.immediate(SLOT);
        LocalVersionClock clock = new LocalVersionClock(tm);
        clock.bump(SLOT);
        clock.refill(); // reserves two slots above SLOT
        assertEquals(SlotReserve.TARGET, clock.reservedSlots());
        long reader = tm.issue(); // a reader began later and read here: the reserved slots are older
        clock.bump(reader);
        List<Long> drawn = new ArrayList<>();
        for (int i = 0; i < FAST_PATH_VERSIONS_PER_SLOT + 1; i++) {
            drawn.add(clock.next());
        }
        long last = drawn.get(drawn.size() - 1);
        assertTrue(last > reader + TimestampLayout.FAST_PATH_LAST_OFFSET, "moved to a slot newer than the reader: "
                + TimestampLayout.describe(last));
        for (int i = 1; i < drawn.size(); i++) {
            assertTrue(drawn.get(i) > drawn.get(i - 1));
        }
    }

    /** Running out of sequence numbers never stalls: the next slot is fetched from half the slot on. */
    @Test
    void theNextSlotIsReservedWhileHalfOfTheCurrentOneIsLeft() {
        ScriptedTimestamps tm = ScriptedTimestamps.held(SLOT);
        LocalVersionClock clock = new LocalVersionClock(tm);
        clock.bump(SLOT);
        int drawnBeforeRequest = 0;
        while (tm.requests() == 0) {
            clock.next();
            drawnBeforeRequest++;
        }
        assertTrue(drawnBeforeRequest <= FAST_PATH_VERSIONS_PER_SLOT / 2 + 1, "asked after " + drawnBeforeRequest);
        assertTrue(tm.answerOne()); // the TM answers while the slot still has versions
        int aborted = 0;
        for (int i = 0; i < 3 * FAST_PATH_VERSIONS_PER_SLOT; i++) {
            if (clock.next() == LocalVersionClock.NONE) {
                aborted++;
            }
            tm.answerOne();
        }
        assertEquals(0, aborted, "a slot reserved ahead: no write found the clock without a version");
    }

    @Test
    void eightThreadsDrawDistinctIncreasingVersionsAcrossSlots() throws Exception {
        ScriptedTimestamps tm = ScriptedTimestamps.immediate(SLOT);
        LocalVersionClock clock = new LocalVersionClock(tm);
        clock.bump(tm.issue());
        int threads = 8;
        int perThread = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    long[] versions = new long[perThread];
                    for (int i = 0; i < perThread; i++) {
                        versions[i] = clock.next();
                    }
                    return versions;
                }));
            }
            go.countDown();
            Set<Long> all = new HashSet<>();
            int none = 0;
            for (Future<long[]> f : results) {
                long previous = 0;
                for (long v : f.get(50, TimeUnit.SECONDS)) {
                    if (v == LocalVersionClock.NONE) {
                        none++;
                        continue;
                    }
                    assertTrue(v > previous, "a thread's versions increase");
                    assertTrue(TimestampLayout.isFastPathVersion(v));
                    assertTrue(all.add(v), "drawn twice: " + v);
                    previous = v;
                }
            }
            assertTrue(none < threads * perThread / 100, none + " draws without a version");
        } finally {
            pool.shutdownNow();
        }
    }

    /** A TM whose timestamps follow {@code wall} (its millisecond), and which can be taken down. */
    private static final class WallTm implements TimestampSource {
        final java.util.concurrent.atomic.AtomicLong wall;
        volatile boolean up = true;
        private long last;

        WallTm(java.util.concurrent.atomic.AtomicLong wall) {
            this.wall = wall;
        }

        @Override
        public synchronized java.util.concurrent.CompletableFuture<Long> fresh() {
            if (!up) {
                return java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("no TM (test)"));
            }
            last = Math.max(TimestampLayout.nextSlotStart(last), TimestampLayout.firstSlotOfMillis(wall.get()));
            return java.util.concurrent.CompletableFuture.completedFuture(last);
        }
    }

    /**
     * Versions expire by TTL by their millisecond: a slot that lags the wall clock by more than the maximum slot age
     * is not drawn from, nor is a reserved slot fetched long ago (reserved slots are handed out oldest first).
     */
    @Test
    void aSlotOlderThanTheMaximumAgeIsLeftForAFreshOneOrNoVersion() {
        java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(
                TimestampLayout.millisOf(SLOT));
        WallTm tm = new WallTm(wall);
        LocalVersionClock clock = new LocalVersionClock(tm, 1_000, wall::get);
        clock.bump(SLOT);
        clock.refill(); // slots reserved now, at the slot's millisecond
        assertEquals(SLOT + 50, clock.next());
        wall.addAndGet(999);
        assertEquals(SLOT + 51, clock.next(), "younger than the maximum age: drawn from");

        wall.addAndGet(60_000); // the clock lags a minute: nothing read, nothing committed
        tm.up = false;
        assertEquals(LocalVersionClock.NONE, clock.next(), "no version from an aged slot, nor an aged reserved one");

        tm.up = true;
        long fresh = clock.next();
        assertTrue(TimestampLayout.millisOf(fresh) >= wall.get() - 1_000, "a young slot: "
                + TimestampLayout.describe(fresh) + " at wall " + wall.get());
        assertTrue(TimestampLayout.isFastPathVersion(fresh) && fresh > SLOT + 51);
    }

    /** Before the row is locked, an aged clock is moved to a fresh TM timestamp; a young one is left alone. */
    @Test
    void freshenMovesAnAgedClockToAFreshTimestamp() {
        java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(
                TimestampLayout.millisOf(SLOT));
        WallTm tm = new WallTm(wall);
        LocalVersionClock clock = new LocalVersionClock(tm, 1_000, wall::get);
        clock.bump(SLOT);
        clock.freshen(1_000);
        assertEquals(SLOT, clock.current(), "young: untouched");
        wall.addAndGet(5_000);
        clock.freshen(1_000);
        assertTrue(TimestampLayout.millisOf(clock.current()) >= wall.get(), clock.toString());
        long v = clock.next();
        assertTrue(v > clock.current() - 1 && TimestampLayout.millisOf(v) >= wall.get() - 1_000);
    }
}
