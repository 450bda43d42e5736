package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionManagerCoreTest {
    static final long MILLIS = 1_717_200_000_000L;
    static final long TABLE_A = 0xA;
    static final long TABLE_B = 0xB;
    static final long[] NO_ROWS = new long[0];

    /** A small TM: the default conflict table is 64 MB, far more than a unit test needs. */
    static TmConfig small(Map<String, String> overrides) {
        Map<String, String> m = new HashMap<>();
        m.put(TmConfig.CONFLICT_ENTRIES, "65536");
        m.put(TmConfig.CONFLICT_ASSOCIATIVITY, "8");
        m.putAll(overrides);
        return TmConfig.from(m::get);
    }

    static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage storage, FenceStore fences,
                                        Lease lease) throws TmException {
        return TransactionManagerCore.start(config, clock, storage, fences, lease);
    }

    static TransactionManagerCore inMemory() {
        return TransactionManagerCore.startInMemory(small(Map.of()));
    }

    @Test
    void beginIssuesIncreasingSlotStartsAndCommitTimestampsFollow() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long t1 = tm.begin();
            long t2 = tm.begin();
            assertTrue(TimestampLayout.isSlotStart(t1) && TimestampLayout.isSlotStart(t2));
            assertTrue(t2 > t1);
            CommitDecision d = tm.commit(t1, new long[] {1, 2, 3}, new long[] {TABLE_A});
            assertTrue(d.isCommitted(), d.toString());
            assertTrue(d.commitTimestamp() > t2 && TimestampLayout.isSlotStart(d.commitTimestamp()));
            assertTrue(tm.begin() > d.commitTimestamp());
            assertTrue(tm.isServing());
            assertEquals(65536, tm.conflictTableCapacity());
        }
    }

    @Test
    void writeWriteConflictAborts() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long t1 = tm.begin();
            long t2 = tm.begin();
            assertTrue(tm.commit(t2, new long[] {42}, new long[] {TABLE_A}).isCommitted());
            CommitDecision d = tm.commit(t1, new long[] {7, 42}, new long[] {TABLE_A});
            assertFalse(d.isCommitted());
            assertSame(AbortReason.CONFLICT, d.abortReason());
            assertTrue(d.abortReason().isRetryable());
            assertThrows(IllegalStateException.class, d::commitTimestamp);
            // A retry (new start timestamp) commits.
            assertTrue(tm.commit(tm.begin(), new long[] {7, 42}, new long[] {TABLE_A}).isCommitted());
            // Read-only transactions always commit.
            assertTrue(tm.commit(t1, NO_ROWS, NO_ROWS).isCommitted());
        }
    }

    @Test
    void fenceAbortsEarlierWritersOfItsTableOnly() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long before1 = tm.begin();
            long before2 = tm.begin();
            long before3 = tm.begin();
            long before4 = tm.begin();
            long fence = tm.fence(TABLE_A);
            long after = tm.begin();
            assertTrue(TimestampLayout.isSlotStart(fence));
            assertTrue(before4 < fence && fence < after);

            CommitDecision d = tm.commit(before1, new long[] {1}, new long[] {TABLE_A});
            assertSame(AbortReason.FENCE, d.abortReason());
            assertTrue(d.abortReason().explanation().contains("index"));
            // Conflict-free writes count too: fences apply to every table in tableIds.
            assertSame(AbortReason.FENCE, tm.commit(before2, NO_ROWS, new long[] {TABLE_B, TABLE_A}).abortReason());
            // Another table is unaffected.
            assertTrue(tm.commit(before3, new long[] {2}, new long[] {TABLE_B}).isCommitted());
            // Readers of the fenced table (nothing written) are unaffected.
            assertTrue(tm.commit(before4, NO_ROWS, NO_ROWS).isCommitted());
            // Started after the fence: commits.
            CommitDecision ok = tm.commit(after, new long[] {1}, new long[] {TABLE_A});
            assertTrue(ok.isCommitted());
            assertTrue(ok.commitTimestamp() > fence);
        }
    }

    /**
     * Review finding (lost update across an online CREATE INDEX): a transaction both fenced and in conflict was
     * answered FENCE, which Phoenix replays. The conflict is the reason no replay of these writes can get past.
     */
    @Test
    void aFencedWriterThatAlsoConflictsIsToldConflict() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long a = tm.begin();
            long b = tm.begin();
            long untouched = tm.begin();
            assertTrue(tm.commit(b, new long[] {42}, new long[] {TABLE_A}).isCommitted());
            tm.fence(TABLE_A);
            assertSame(AbortReason.CONFLICT, tm.commit(a, new long[] {42}, new long[] {TABLE_A}).abortReason());
            assertSame(AbortReason.FENCE, tm.commit(untouched, new long[] {43}, new long[] {TABLE_A}).abortReason(),
                    "no conflict: the fence is the reason");
        }
    }

    /**
     * Phoenix's commit retry re-sends the writes of a failed transaction in a new one. Validated from the new start
     * only, the replay would overwrite a commit that landed after the original read its values (lost update);
     * validated from the original start, it conflicts.
     */
    @Test
    void aReplayIsValidatedFromTheOriginalStart() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long original = tm.begin();
            long other = tm.begin();
            assertTrue(tm.commit(other, new long[] {42}, new long[] {TABLE_A}).isCommitted());
            long replay = tm.begin();
            assertTrue(replay > other);
            CommitDecision d = tm.commit(replay, original, new long[] {42}, new long[] {TABLE_A});
            assertSame(AbortReason.CONFLICT, d.abortReason(), "the commit after the original's start conflicts");
            // Rows nobody wrote since the original's start: the replay commits.
            assertTrue(tm.commit(tm.begin(), original, new long[] {7}, new long[] {TABLE_A}).isCommitted());
            // The same replay validated from its own start commits (what happened before the fix).
            assertTrue(tm.commit(tm.begin(), new long[] {42}, new long[] {TABLE_A}).isCommitted());
        }
    }

    /** A replay needs the conflict history since the original start: once evicted, it aborts (never a miss). */
    @Test
    void aReplayFromBeforeTheLowWaterMarkAborts() throws Exception {
        TmConfig tiny = TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "4", TmConfig.CONFLICT_ASSOCIATIVITY, "4")::get);
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(tiny)) {
            long original = tm.begin();
            for (int i = 0; i < 5; i++) {
                assertTrue(tm.commit(tm.begin(), new long[] {100 + i}, new long[] {TABLE_A}).isCommitted());
            }
            assertTrue(original < tm.lowWaterMark(), "an eviction raised the mark above the original's start");
            long replay = tm.begin();
            assertTrue(replay > tm.lowWaterMark());
            assertSame(AbortReason.BELOW_LOW_WATER_MARK,
                    tm.commit(replay, original, new long[] {7}, new long[] {TABLE_A}).abortReason());
        }
    }

    @Test
    void conflictsSinceAfterTheTransactionsOwnStartIsRefused() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long first = tm.begin();
            long second = tm.begin();
            TmException e = assertThrows(TmException.class,
                    () -> tm.commit(first, second, new long[] {2}, new long[] {TABLE_A}));
            assertTrue(e.getMessage().contains("after its own start"), e.getMessage());
        }
    }

    @Test
    void aNewerFenceMovesTheLineForward() throws Exception {
        try (TransactionManagerCore tm = inMemory()) {
            long f1 = tm.fence(TABLE_A);
            long between = tm.begin();
            long f2 = tm.fence(TABLE_A);
            long after = tm.begin();
            assertTrue(f1 < between && between < f2);
            assertSame(AbortReason.FENCE, tm.commit(between, new long[] {1}, new long[] {TABLE_A}).abortReason());
            assertTrue(tm.commit(after, new long[] {1}, new long[] {TABLE_A}).isCommitted());
        }
    }

    @Test
    void fencesSurviveANewCoreOnTheSameStores() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        FenceStore fenceStore = FenceStore.inMemory();
        TransactionManagerCore first = start(small(Map.of()), Clock.SYSTEM, storage, fenceStore, Lease.ALWAYS_HELD);
        long before = first.begin();
        long fence = first.fence(TABLE_A);
        assertEquals(Map.of(TABLE_A, fence), fenceStore.loadAll(), "fence was not persisted before returning");
        first.close();

        TransactionManagerCore second = start(small(Map.of()), Clock.SYSTEM, storage, fenceStore, Lease.ALWAYS_HELD);
        try {
            // The transaction the fence was taken against can never commit a write to the table on the new TM.
            CommitDecision d = second.commit(before, new long[] {1}, new long[] {TABLE_A});
            assertFalse(d.isCommitted(), "a transaction older than a fence committed after failover");
            // (The new epoch's low-water mark already covers it, and every fence of the old epoch.)
            assertSame(AbortReason.BELOW_LOW_WATER_MARK, d.abortReason());
            assertTrue(second.lowWaterMark() >= fence);
            assertTrue(second.epochBase() >= fence);
            // New transactions write the table normally, and the fence stays in the store.
            assertTrue(second.commit(second.begin(), new long[] {1}, new long[] {TABLE_A}).isCommitted());
            assertEquals(Map.of(TABLE_A, fence), fenceStore.loadAll());
        } finally {
            second.close();
        }
    }

    @Test
    void aNewCoreEnforcesEveryFenceItLoads() throws Exception {
        // The store is the source of truth: a core enforces every fence the store holds from its first commit on.
        // (A fence far above the new epoch makes this observable; a real fence of an older primary is also covered
        // by the new epoch's low-water mark, see fencesSurviveANewCoreOnTheSameStores.)
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        FenceStore fenceStore = FenceStore.inMemory();
        ManualClock clock = new ManualClock(MILLIS);
        long fenceTs = TimestampLayout.firstSlotOfMillis(MILLIS + 60_000);
        fenceStore.persist(TABLE_A, fenceTs);
        try (TransactionManagerCore tm = start(small(Map.of()), clock, storage, fenceStore, Lease.ALWAYS_HELD)) {
            long tx = tm.begin();
            assertTrue(tx < fenceTs);
            assertSame(AbortReason.FENCE, tm.commit(tx, new long[] {1}, new long[] {TABLE_A}).abortReason());
            assertTrue(tm.commit(tx, new long[] {1}, new long[] {TABLE_B}).isCommitted());
            clock.set(MILLIS + 60_001);
            assertTrue(tm.commit(tm.begin(), new long[] {1}, new long[] {TABLE_A}).isCommitted());
        }
    }

    @Test
    void fenceFailsWhenItCannotBePersisted() throws Exception {
        FenceStore broken = new FenceStore() {
            @Override
            public void persist(long tableId, long fenceTs) throws TmException {
                throw new TmException("fence store down");
            }

            @Override
            public Map<Long, Long> loadAll() {
                return Map.of();
            }
        };
        try (TransactionManagerCore tm = start(small(Map.of()), Clock.SYSTEM, new InMemoryTimestampStorage(), broken,
                Lease.ALWAYS_HELD)) {
            long tx = tm.begin();
            assertThrows(TmException.class, () -> tm.fence(TABLE_A));
            // A fence that was never returned must not block anybody.
            assertTrue(tm.commit(tx, new long[] {1}, new long[] {TABLE_A}).isCommitted());
        }
    }

    /**
     * Writers race with fences: every committed writer of the fenced table either started after a fence or
     * committed below it (so its writes are in the snapshot the index is built from).
     */
    @Test
    void concurrentWritersNeverStraddleAFence() throws Exception {
        record Tx(long start, long commit) {
        }
        TmConfig roomy = small(Map.of(TmConfig.CONFLICT_ENTRIES, Integer.toString(1 << 20),
                TmConfig.CONFLICT_ASSOCIATIVITY, "32"));
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(roomy)) {
            int threads = 4;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            ConcurrentLinkedQueue<Tx> committed = new ConcurrentLinkedQueue<>();
            AtomicInteger commits = new AtomicInteger();
            List<Long> fences = new ArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch running = new CountDownLatch(threads);
            AtomicInteger fenceAborts = new AtomicInteger();
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    futures.add(pool.submit(() -> {
                        running.countDown();
                        while (!stop.get()) {
                            long tx = tm.begin();
                            long row = ThreadLocalRandom.current().nextLong();
                            CommitDecision d = tm.commit(tx, new long[] {row}, new long[] {TABLE_A});
                            if (d.isCommitted()) {
                                committed.add(new Tx(tx, d.commitTimestamp()));
                                commits.incrementAndGet();
                            } else if (d.abortReason() == AbortReason.FENCE) {
                                fenceAborts.incrementAndGet();
                            } else {
                                throw new AssertionError("unexpected " + d);
                            }
                        }
                        return null;
                    }));
                }
                assertTrue(running.await(30, TimeUnit.SECONDS));
                for (int i = 0; i < 50; i++) {
                    int target = commits.get() + 5;
                    fences.add(tm.fence(TABLE_A));
                    while (commits.get() < target) { // some commits between fences, whatever the scheduler does
                        Thread.yield();
                    }
                }
                stop.set(true);
                for (Future<?> f : futures) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertTrue(committed.size() >= 250, committed.size() + " commits");
            for (Tx tx : committed) {
                for (long fence : fences) {
                    assertFalse(tx.start() < fence && tx.commit() > fence,
                            "tx " + tx.start() + " committed at " + tx.commit() + " across fence " + fence);
                }
            }
        }
    }

    @Test
    void oversizeWriteSetIsRejectedNamingTheLimit() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(
                small(Map.of(TmConfig.MAX_WRITE_SET, "4")))) {
            long tx = tm.begin();
            assertTrue(tm.commit(tx, new long[] {1, 2, 3, 4}, new long[] {TABLE_A}).isCommitted(), "at the limit");
            TmException e = assertThrows(TmException.class,
                    () -> tm.commit(tm.begin(), new long[] {1, 2, 3, 4, 5}, new long[] {TABLE_A}));
            assertTrue(e.getMessage().contains("phoenix.txn.tm.max.writeset.size"), e.getMessage());
            assertTrue(e.getMessage().contains("5") && e.getMessage().contains("4"), e.getMessage());
            assertTrue(tm.isServing(), "a client error must not stop the TM");
        }
    }

    @Test
    void fullConflictHistoryAbortsInsteadOfForgetting() throws Exception {
        TmConfig tiny = TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "4", TmConfig.CONFLICT_ASSOCIATIVITY, "4")::get);
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(tiny)) {
            assertEquals(4, tm.conflictTableCapacity());
            long old = tm.begin();
            for (int i = 1; i <= 4; i++) {
                assertTrue(tm.commit(tm.begin(), new long[] {100 + i}, new long[] {TABLE_A}).isCommitted());
            }
            CommitDecision d = tm.commit(old, new long[] {200}, new long[] {TABLE_A});
            assertSame(AbortReason.CONFLICT_HISTORY_FULL, d.abortReason());
            assertTrue(d.abortReason().explanation().contains(TmConfig.CONFLICT_ENTRIES));
        }
    }

    @Test
    void evictionRaisesTheLowWaterMarkAndOlderTransactionsAbortBelowIt() throws Exception {
        TmConfig tiny = TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "4", TmConfig.CONFLICT_ASSOCIATIVITY, "4")::get);
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(tiny)) {
            long lwm0 = tm.lowWaterMark();
            long old = tm.begin();
            long[] commits = new long[4];
            for (int i = 0; i < 4; i++) {
                commits[i] = tm.commit(tm.begin(), new long[] {100 + i}, new long[] {TABLE_A}).commitTimestamp();
            }
            assertEquals(lwm0, tm.lowWaterMark(), "no eviction yet");
            long young = tm.begin();
            assertTrue(tm.commit(young, new long[] {999}, new long[] {TABLE_A}).isCommitted());
            assertEquals(commits[0], tm.lowWaterMark(), "the oldest commit was evicted");
            assertTrue(old < tm.lowWaterMark());
            // Any transaction below the mark aborts, whatever it writes (even nothing, even another table).
            for (long[] rows : new long[][] {{100}, {12345}, NO_ROWS}) {
                CommitDecision d = tm.commit(old, rows, new long[] {TABLE_B});
                assertSame(AbortReason.BELOW_LOW_WATER_MARK, d.abortReason(), d.toString());
            }
        }
    }

    @Test
    void leaseNotHeldFailsCalls() throws Exception {
        AtomicBoolean held = new AtomicBoolean(true);
        try (TransactionManagerCore tm = start(small(Map.of()), Clock.SYSTEM, new InMemoryTimestampStorage(),
                FenceStore.inMemory(), held::get)) {
            long tx = tm.begin();
            held.set(false);
            TmException b = assertThrows(TmException.class, tm::begin);
            assertTrue(b.getMessage().contains("not primary"), b.getMessage());
            assertThrows(TmException.class, () -> tm.commit(tx, new long[] {1}, new long[] {TABLE_A}));
            assertThrows(TmException.class, () -> tm.fence(TABLE_A));
            assertThrows(TmException.class, tm::lowWaterMark);
        }
    }

    @Test
    void leaseLostWhileDecidingAbortsTheCommit() throws Exception {
        AtomicBoolean held = new AtomicBoolean(true);
        AtomicBoolean expireOnNextClockRead = new AtomicBoolean();
        // The primary is paused while it takes the commit timestamp (the oracle reads the clock) and its lease
        // runs out meanwhile.
        Clock pausingClock = () -> {
            if (expireOnNextClockRead.getAndSet(false)) {
                held.set(false);
            }
            return System.currentTimeMillis();
        };
        try (TransactionManagerCore tm = start(small(Map.of()), pausingClock, new InMemoryTimestampStorage(),
                FenceStore.inMemory(), held::get)) {
            long tx = tm.begin();
            expireOnNextClockRead.set(true);
            CommitDecision d = tm.commit(tx, new long[] {1}, new long[] {TABLE_A});
            assertSame(AbortReason.LEASE_LOST, d.abortReason(), d.toString());
            assertTrue(d.abortReason().isRetryable());
            assertThrows(TmException.class, tm::begin);
        }
    }

    @Test
    void stopFailsEveryCallWithTheReason() throws Exception {
        TransactionManagerCore tm = inMemory();
        long tx = tm.begin();
        tm.stop("maintenance window");
        tm.stop("a later reason does not replace the first");
        assertFalse(tm.isServing());
        for (ThrowingCall call : List.<ThrowingCall>of(tm::begin, () -> tm.commit(tx, new long[] {1}, NO_ROWS),
                () -> tm.fence(TABLE_A), tm::lowWaterMark)) {
            TmException e = assertThrows(TmException.class, call::run);
            assertEquals("Transaction manager is not serving: maintenance window", e.getMessage());
        }
        TransactionManagerCore closed = inMemory();
        closed.close();
        TmException e = assertThrows(TmException.class, closed::begin);
        assertTrue(e.getMessage().contains("shut down"), e.getMessage());
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void aSecondPrimaryOnTheSameStorageStopsTheFirstAndAbortsItsTransactions() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        FenceStore fences = FenceStore.inMemory();
        ManualClock clock = new ManualClock(MILLIS);
        TmConfig oneMs = small(Map.of(TmConfig.TIMESTAMP_RESERVATION_MS, "1"));
        TransactionManagerCore first = start(oneMs, clock, storage, fences, Lease.ALWAYS_HELD);
        long oldTx = first.begin();
        TransactionManagerCore second = start(oneMs, clock, storage, fences, Lease.ALWAYS_HELD);
        try {
            assertTrue(second.lowWaterMark() > oldTx);
            clock.advance(2); // the first one's reservation runs out
            assertThrows(LostPrimacyException.class, first::begin);
            assertFalse(first.isServing());
            TmException e = assertThrows(TmException.class, first::begin);
            assertTrue(e.getMessage().contains("not serving") && e.getMessage().contains("no longer primary"),
                    e.getMessage());
            // Its transactions cannot commit at the new primary.
            assertSame(AbortReason.BELOW_LOW_WATER_MARK,
                    second.commit(oldTx, new long[] {1}, new long[] {TABLE_A}).abortReason());
            long newTx = second.begin();
            assertTrue(newTx > oldTx && newTx > second.epochBase());
            assertTrue(second.commit(newTx, new long[] {1}, new long[] {TABLE_A}).isCommitted());
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void lostPrimacyDuringCommitStopsTheCore() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        ManualClock clock = new ManualClock(MILLIS);
        TmConfig oneMs = small(Map.of(TmConfig.TIMESTAMP_RESERVATION_MS, "1"));
        TransactionManagerCore first = start(oneMs, clock, storage, FenceStore.inMemory(), Lease.ALWAYS_HELD);
        long tx = first.begin();
        TransactionManagerCore second = start(oneMs, clock, storage, FenceStore.inMemory(), Lease.ALWAYS_HELD);
        clock.advance(2);
        assertThrows(LostPrimacyException.class, () -> first.commit(tx, new long[] {1}, new long[] {TABLE_A}));
        assertFalse(first.isServing());
        assertThrows(TmException.class, () -> first.fence(TABLE_A));
        first.close();
        second.close();
    }

    @Test
    void concurrentBeginCommitFromManyThreads() throws Exception {
        // 1M entries, 32 ways: ~100K rows never overflow a bucket, so nothing may abort. (With a table about the
        // size of the run, a thread descheduled mid-transaction on a 2-core machine can legitimately fall below
        // the low-water mark: 5-18K commits were observed to pass during one such stall.)
        TmConfig roomy = small(Map.of(TmConfig.CONFLICT_ENTRIES, Integer.toString(1 << 20),
                TmConfig.CONFLICT_ASSOCIATIVITY, "32"));
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(roomy)) {
            int threads = 8;
            int perThread = 5_000;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            try {
                List<Future<Integer>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    futures.add(pool.submit(() -> {
                        go.await();
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        int committed = 0;
                        long previous = 0;
                        for (int i = 0; i < perThread; i++) {
                            long tx = tm.begin();
                            if (tx <= previous) {
                                throw new AssertionError("begin went backwards");
                            }
                            long[] rows = new long[1 + random.nextInt(4)];
                            for (int k = 0; k < rows.length; k++) {
                                rows[k] = random.nextLong();
                            }
                            CommitDecision d = tm.commit(tx, rows, new long[] {TABLE_A});
                            if (!d.isCommitted()) {
                                throw new AssertionError("random 64-bit rows aborted: " + d);
                            }
                            previous = d.commitTimestamp();
                            committed++;
                        }
                        return committed;
                    }));
                }
                go.countDown();
                int total = 0;
                for (Future<Integer> f : futures) {
                    total += f.get(50, TimeUnit.SECONDS);
                }
                assertEquals(threads * perThread, total);
                assertEquals(0, tm.lowWaterMark(), "nothing should have been evicted");
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** A primary whose lease runs out while it draws a bare timestamp lets it out no more than a commit decision. */
    @Test
    void aBareTimestampDrawnWhileTheLeaseRanOutIsWithheld() throws Exception {
        AtomicInteger heldAnswersLeft = new AtomicInteger(Integer.MAX_VALUE);
        Lease lease = () -> heldAnswersLeft.getAndDecrement() > 0;
        try (TransactionManagerCore tm = start(small(Map.of()), Clock.SYSTEM, new InMemoryTimestampStorage(),
                FenceStore.inMemory(), lease)) {
            long first = tm.timestamp();
            assertTrue(TimestampLayout.isSlotStart(first));
            heldAnswersLeft.set(1); // held when the call starts, lost by the time the timestamp is drawn
            TmException e = assertThrows(TmException.class, tm::timestamp);
            assertTrue(e.getMessage().contains("lease"), e.getMessage());
            heldAnswersLeft.set(Integer.MAX_VALUE);
        }
    }
}
