package io.phoenixtxn.tm;

import static io.phoenixtxn.tm.ConflictTable.Result.COMMITTED;
import static io.phoenixtxn.tm.ConflictTable.Result.CONFLICT;
import static io.phoenixtxn.tm.ConflictTable.Result.NO_ROOM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.phoenixtxn.tm.ConflictTable.Result;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConflictTableTest {
    private final LowWaterMark lwm = new LowWaterMark();
    private ExecutorService pool;

    @AfterEach
    void stopPool() throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "worker threads did not stop");
        }
    }

    private static long[] rows(long... r) {
        return r;
    }

    @Test
    void constructorValidatesShape() {
        assertThrows(IllegalArgumentException.class, () -> new ConflictTable(4, 0, lwm));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ConflictTable(2, 4, lwm));
        assertTrue(e.getMessage().contains("entries=2") && e.getMessage().contains("associativity=4"),
                e.getMessage());
        assertEquals(4, new ConflictTable(4, 4, lwm).capacity());
        assertEquals(8, new ConflictTable(10, 4, lwm).capacity(), "whole buckets only");
    }

    private static void awaitLockWaits(ConflictTable t, long waits) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.lockWaits() < waits) {
            assertTrue(System.nanoTime() < deadline, "no commit waited for a busy lock within 10 s");
            Thread.sleep(1);
        }
    }

    /** A row hash whose key lands in {@code bucket} of a table with {@code buckets} buckets. */
    private static long rowInBucket(int bucket, int buckets) {
        long top = ((long) bucket << 32) / buckets + (1L << 31) / buckets; // the middle of the bucket's key range
        long key = ((top - (1L << 31)) << 32) | 1L;
        return ConflictKeys.unmix(key);
    }

    @Test
    void aCommitWaitingForABusyBucketHoldsNoOtherBucket() throws Exception {
        // 16 buckets of 4 ways, one lock each. A commit descheduled while holding bucket 9 must delay only commits
        // that need bucket 9: a commit of buckets 3 and 9 waits for it holding nothing, so bucket 3 stays free.
        // With ordered waiting it held bucket 3 the whole time, and every commit behind it queued (a convoy).
        ConflictTable t = new ConflictTable(64, 4, lwm, Integer.MAX_VALUE);
        long inBucket3 = rowInBucket(3, 16);
        long inBucket9 = rowInBucket(9, 16);
        assertEquals(3, t.bucketOf(ConflictKeys.keyOf(inBucket3)));
        assertEquals(9, t.bucketOf(ConflictKeys.keyOf(inBucket9)));
        pool = Executors.newSingleThreadExecutor();
        t.holdBucket(9);
        Future<Result> spanning;
        try {
            spanning = pool.submit(() -> t.checkAndRecord(10, rows(inBucket3, inBucket9), 20));
            awaitLockWaits(t, 1); // it found bucket 9 busy and let go of bucket 3
            ExecutorService other = Executors.newSingleThreadExecutor(r -> {
                Thread thread = new Thread(r, "bucket-3-writer");
                thread.setDaemon(true);
                return thread;
            });
            try {
                Future<Result> alone = other.submit(() -> t.checkAndRecord(10, rows(inBucket3), 30));
                assertEquals(COMMITTED, alone.get(10, TimeUnit.SECONDS), "bucket 3 was held by a waiting commit");
            } finally {
                other.shutdownNow();
            }
            assertTrue(!spanning.isDone(), "the commit of buckets 3 and 9 cannot finish while 9 is held");
        } finally {
            t.releaseBucket(9);
        }
        assertEquals(CONFLICT, spanning.get(10, TimeUnit.SECONDS), "it sees the commit at 30 on bucket 3's row");
    }

    @Test
    void aCommitOutOfAllOrNothingAttemptsQueuesInOrderHoldingItsLowerBucketsAndGetsThrough() throws Exception {
        // No all-or-nothing attempt left: the commit takes bucket 3, then waits for bucket 9 holding it.
        ConflictTable t = new ConflictTable(64, 4, lwm, 0);
        long inBucket3 = rowInBucket(3, 16);
        long inBucket9 = rowInBucket(9, 16);
        pool = Executors.newSingleThreadExecutor();
        t.holdBucket(9);
        Future<Result> spanning;
        try {
            spanning = pool.submit(() -> t.checkAndRecord(10, rows(inBucket3, inBucket9), 20));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (t.bucketFree(3)) {
                assertTrue(System.nanoTime() < deadline, "the queued commit never took bucket 3");
                Thread.sleep(1);
            }
            assertTrue(!spanning.isDone(), "it cannot finish while bucket 9 is held");
            assertEquals(0, t.lockWaits(), "no all-or-nothing attempt was made");
        } finally {
            t.releaseBucket(9);
        }
        assertEquals(COMMITTED, spanning.get(10, TimeUnit.SECONDS));
        assertEquals(CONFLICT, t.checkAndRecord(10, rows(inBucket9), 30), "both rows were recorded at 20");
    }

    @Test
    void writeAfterStartConflictsWriteBeforeStartDoesNot() {
        ConflictTable t = new ConflictTable(1024, 8, lwm);
        assertEquals(COMMITTED, t.checkAndRecord(10, rows(42), 20));
        assertEquals(CONFLICT, t.checkAndRecord(15, rows(42), 25), "started at 15, row committed at 20");
        assertEquals(CONFLICT, t.checkAndRecord(19, rows(7, 42, 9), 26), "one conflicting row is enough");
        assertEquals(COMMITTED, t.checkAndRecord(21, rows(42), 30), "started after the commit at 20");
        assertEquals(CONFLICT, t.checkAndRecord(22, rows(42), 31), "now the row was committed at 30");
        assertEquals(COMMITTED, t.checkAndRecord(15, rows(43), 32), "other rows are independent");
        assertEquals(0, lwm.get(), "nothing was evicted");
    }

    @Test
    void rejectedCommitsRecordNothing() {
        ConflictTable t = new ConflictTable(1024, 8, lwm);
        assertEquals(COMMITTED, t.checkAndRecord(10, rows(1000), 20));
        // 2000 and 3000 are clean, 1000 conflicts: nothing of this write set may be remembered.
        assertEquals(CONFLICT, t.checkAndRecord(15, rows(2000, 1000, 3000), 25));
        assertEquals(COMMITTED, t.checkAndRecord(1, rows(2000, 3000), 30),
                "rows of an aborted transaction were recorded");
    }

    @Test
    void emptyWriteSetCommits() {
        ConflictTable t = new ConflictTable(4, 4, lwm);
        assertEquals(COMMITTED, t.checkAndRecord(10, new long[0], 11));
    }

    @Test
    void duplicateRowsInOneWriteSetDoNotSelfConflictOrOverflow() {
        ConflictTable t = new ConflictTable(4, 4, lwm); // one bucket of four
        long[] dup = rows(5, 5, 6, 6, 7, 7, 8, 8, 5);
        long[] copy = dup.clone();
        assertEquals(COMMITTED, t.checkAndRecord(10, dup, 20), "8 entries, but only 4 distinct rows");
        assertTrue(Arrays.equals(copy, dup), "the caller's array was modified");
        assertEquals(CONFLICT, t.checkAndRecord(15, rows(8), 21));
        assertEquals(COMMITTED, t.checkAndRecord(25, rows(5, 5, 5), 30), "rows present already: no new slot");
        assertEquals(0, lwm.get());
    }

    @Test
    void rowHashZeroIsTrackedLikeAnyOther() {
        ConflictTable t = new ConflictTable(64, 4, lwm);
        assertEquals(COMMITTED, t.checkAndRecord(10, rows(0), 20));
        assertEquals(CONFLICT, t.checkAndRecord(15, rows(0), 21), "hash 0 (the empty marker) lost its history");
    }

    @Test
    void rowHashZeroIsNotMistakenForAnEmptySlot() {
        ConflictTable t = new ConflictTable(4, 4, lwm);
        assertEquals(COMMITTED, t.checkAndRecord(10, rows(0), 20));
        // Three more rows fill the bucket; none of them may take row 0's slot as if it were free.
        assertEquals(COMMITTED, t.checkAndRecord(25, rows(2, 3, 4), 30));
        assertEquals(0, lwm.get());
        assertNotEquals(COMMITTED, t.checkAndRecord(15, rows(0), 31), "row 0's commit at 20 was forgotten");
    }

    @Test
    void fullBucketOfNewerCommitsAnswersNoRoomNeverASilentMiss() {
        ConflictTable t = new ConflictTable(4, 4, lwm); // entries=4, associativity=4: a single bucket
        long start = 100; // a transaction that started at 100 and is still running
        // Four commits, all newer than 100, fill the only bucket.
        assertEquals(COMMITTED, t.checkAndRecord(101, rows(1), 110));
        assertEquals(COMMITTED, t.checkAndRecord(102, rows(2), 120));
        assertEquals(COMMITTED, t.checkAndRecord(103, rows(3), 130));
        assertEquals(COMMITTED, t.checkAndRecord(104, rows(4), 140));
        assertEquals(0, lwm.get());
        // Recording row 9 for the old transaction would evict history it may need (all of it is newer).
        assertEquals(NO_ROOM, t.checkAndRecord(start, rows(9), 150));
        assertEquals(0, lwm.get(), "NO_ROOM must not evict anything");
        assertEquals(CONFLICT, t.checkAndRecord(start, rows(2), 151), "present rows still conflict");
        // A transaction that started after all four may evict the oldest (row 1 @110): the LWM rises to 110.
        assertEquals(COMMITTED, t.checkAndRecord(145, rows(9), 160));
        assertEquals(110, lwm.get(), "eviction must raise the low-water mark to the evicted commit");
        // Row 1 is gone from the table, but the old transaction still cannot commit it: no silent miss.
        Result r = t.checkAndRecord(start, rows(1), 170);
        assertNotEquals(COMMITTED, r, "a write committed after the start was forgotten");
        assertEquals(NO_ROOM, r);
        // Nor can any other transaction that started before the evicted commit.
        assertNotEquals(COMMITTED, t.checkAndRecord(105, rows(1), 171));
    }

    @Test
    void evictionsTakeTheOldestAndRaiseTheLowWaterMarkToIt() {
        ConflictTable t = new ConflictTable(4, 4, lwm);
        long[] commits = {40, 10, 30, 20}; // recorded out of commit-timestamp order
        for (int i = 0; i < 4; i++) {
            assertEquals(COMMITTED, t.checkAndRecord(commits[i] - 5, rows(100 + i), commits[i]));
        }
        assertEquals(0, lwm.get(), "filling empty slots evicts nothing");
        assertEquals(COMMITTED, t.checkAndRecord(50, rows(200), 60));
        assertEquals(10, lwm.get());
        assertEquals(COMMITTED, t.checkAndRecord(61, rows(201), 70));
        assertEquals(20, lwm.get());
        assertEquals(COMMITTED, t.checkAndRecord(71, rows(202, 203), 80));
        assertEquals(40, lwm.get(), "two evictions: 30 then 40");
        // Survivors are the newest four: 60, 70, 80, 80.
        assertEquals(CONFLICT, t.checkAndRecord(65, rows(201), 81));
        assertEquals(CONFLICT, t.checkAndRecord(75, rows(203), 82));
    }

    @Test
    void aNewRowNeverEvictsOneOfItsOwnWriteSet() {
        ConflictTable t = new ConflictTable(4, 4, lwm);
        assertEquals(COMMITTED, t.checkAndRecord(5, rows(1), 10));
        assertEquals(COMMITTED, t.checkAndRecord(6, rows(2), 20));
        assertEquals(COMMITTED, t.checkAndRecord(7, rows(3), 30));
        assertEquals(COMMITTED, t.checkAndRecord(8, rows(4), 40));
        // Rewrites row 1 (the oldest) and adds row 5: row 5 must evict row 2 (@20), not the rewritten row 1.
        assertEquals(COMMITTED, t.checkAndRecord(50, rows(5, 1), 60));
        assertEquals(20, lwm.get());
        assertEquals(CONFLICT, t.checkAndRecord(55, rows(1), 61), "own row evicted by its own write set");
        assertEquals(CONFLICT, t.checkAndRecord(55, rows(5), 62));
    }

    @Test
    void moreNewRowsThanTheBucketHoldsIsNoRoom() {
        ConflictTable t = new ConflictTable(4, 4, lwm);
        assertEquals(NO_ROOM, t.checkAndRecord(10, rows(1, 2, 3, 4, 5), 20));
        assertEquals(COMMITTED, t.checkAndRecord(1, rows(1, 2, 3, 4), 21), "the rejected write set left rows");
    }

    /**
     * Single-threaded model check against a full-history reference: a table large enough never to evict decides
     * exactly like the reference; a tiny one may say NO_ROOM but never COMMITTED when the reference conflicts, and
     * never CONFLICT when it does not.
     */
    @Test
    void matchesAFullHistoryReference() {
        runModel(new ConflictTable(1 << 16, 8, new LowWaterMark()), true, 11);
        runModel(new ConflictTable(32, 4, new LowWaterMark()), false, 12);
        runModel(new ConflictTable(4, 4, new LowWaterMark()), false, 13);
    }

    private static void runModel(ConflictTable t, boolean exact, long seed) {
        Random random = new Random(seed);
        Map<Long, Long> lastCommit = new HashMap<>();
        List<Long> running = new ArrayList<>();
        long clock = 1000;
        int committed = 0;
        int conflicts = 0;
        int noRoom = 0;
        for (int step = 0; step < 60_000; step++) {
            if (running.size() < 3 || random.nextInt(2) == 0 && running.size() < 30) {
                running.add(clock += 2);
                continue;
            }
            long txId = running.remove(random.nextInt(running.size()));
            long[] ws = new long[1 + random.nextInt(6)];
            for (int i = 0; i < ws.length; i++) {
                ws[i] = 2 + random.nextInt(200); // small universe: frequent conflicts
            }
            long commitTs = clock += 2;
            boolean refConflict = false;
            for (long row : ws) {
                Long c = lastCommit.get(row);
                refConflict |= c != null && c > txId;
            }
            Result r = t.checkAndRecord(txId, ws, commitTs);
            String where = "step " + step + " tx " + txId + " rows " + Arrays.toString(ws);
            if (refConflict) {
                assertNotEquals(COMMITTED, r, "missed conflict at " + where);
            } else {
                assertNotEquals(CONFLICT, r, "false conflict at " + where);
            }
            if (exact) {
                assertEquals(refConflict ? CONFLICT : COMMITTED, r, where);
            }
            if (r == COMMITTED) {
                committed++;
                for (long row : ws) {
                    lastCommit.put(row, commitTs);
                }
            } else if (r == CONFLICT) {
                conflicts++;
            } else {
                noRoom++;
            }
        }
        assertTrue(committed > 1000 && conflicts > 100, committed + " committed, " + conflicts + " conflicts");
        if (exact) {
            assertEquals(0, noRoom);
        }
    }

    @Test
    void disjointConcurrentCommitsAllSucceed() throws Exception {
        ConflictTable t = new ConflictTable(1 << 20, 32, lwm);
        AtomicLong clock = new AtomicLong(1000);
        int threads = 8;
        int perThread = 5_000;
        pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<long[]>> futures = new ArrayList<>();
        for (int th = 0; th < threads; th++) {
            long prefix = (long) (th + 1) << 48;
            futures.add(pool.submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                start.await();
                long next = 0;
                long[] mine = new long[perThread * 8];
                int n = 0;
                for (int i = 0; i < perThread; i++) {
                    long txId = clock.incrementAndGet();
                    long[] ws = new long[1 + random.nextInt(8)];
                    for (int k = 0; k < ws.length; k++) {
                        ws[k] = prefix | ++next; // this thread's rows only
                        mine[n++] = ws[k];
                    }
                    Result r = t.checkAndRecord(txId, ws, clock.incrementAndGet());
                    if (r != COMMITTED) {
                        throw new AssertionError("disjoint commit " + txId + " got " + r);
                    }
                }
                return Arrays.copyOf(mine, n);
            }));
        }
        long total = 0;
        for (Future<long[]> f : futures) {
            long[] written = f.get(50, TimeUnit.SECONDS);
            total += written.length;
            // Every row is remembered: a transaction that started before all of it conflicts on each.
            for (int i = 0; i < written.length; i += 97) {
                assertEquals(CONFLICT, t.checkAndRecord(1, rows(written[i]), clock.incrementAndGet()));
            }
        }
        assertTrue(total < t.capacity());
    }

    @Test
    void sameRowSameStartExactlyOneWinsEveryRound() throws Exception {
        ConflictTable t = new ConflictTable(1 << 16, 8, lwm);
        int threads = 8;
        int rounds = 300;
        AtomicLong clock = new AtomicLong(1000);
        pool = Executors.newFixedThreadPool(threads);
        AtomicLong roundStart = new AtomicLong();
        AtomicInteger winners = new AtomicInteger();
        AtomicInteger losers = new AtomicInteger();
        List<Integer> losersPerRound = new ArrayList<>();
        CyclicBarrier go = new CyclicBarrier(threads, () -> roundStart.set(clock.incrementAndGet()));
        CyclicBarrier done = new CyclicBarrier(threads + 1);
        List<Integer> winnersPerRound = new ArrayList<>();
        CyclicBarrier tally = new CyclicBarrier(threads, () -> {
            winnersPerRound.add(winners.getAndSet(0));
            losersPerRound.add(losers.getAndSet(0));
        });
        List<Future<?>> futures = new ArrayList<>();
        for (int th = 0; th < threads; th++) {
            futures.add(pool.submit(() -> {
                for (int round = 0; round < rounds; round++) {
                    go.await(30, TimeUnit.SECONDS); // all start together, with the same txId, on the same row
                    long txId = roundStart.get();
                    long row = 1_000_000L + round;
                    Result r = t.checkAndRecord(txId, rows(row, row ^ 0x5555_5555L), clock.incrementAndGet());
                    if (r == COMMITTED) {
                        winners.incrementAndGet();
                    } else if (r == CONFLICT) {
                        losers.incrementAndGet();
                    } else {
                        throw new AssertionError("unexpected " + r);
                    }
                    tally.await(30, TimeUnit.SECONDS);
                }
                done.await(30, TimeUnit.SECONDS);
                return null;
            }));
        }
        done.await(50, TimeUnit.SECONDS);
        for (Future<?> f : futures) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertEquals(rounds, winnersPerRound.size());
        for (int round = 0; round < rounds; round++) {
            assertEquals(1, winnersPerRound.get(round), "round " + round + ": winners");
            assertEquals(threads - 1, losersPerRound.get(round), "round " + round + ": CONFLICT answers");
        }
    }

    @Test
    void overlappingPairsExactlyOneOfEachPairWins() throws Exception {
        ConflictTable t = new ConflictTable(1 << 16, 8, lwm);
        int pairs = 4;
        int rounds = 300;
        AtomicLong clock = new AtomicLong(1000);
        pool = Executors.newFixedThreadPool(2 * pairs);
        AtomicLong roundStart = new AtomicLong();
        AtomicInteger[][] results = new AtomicInteger[rounds][pairs];
        for (AtomicInteger[] r : results) {
            for (int p = 0; p < pairs; p++) {
                r[p] = new AtomicInteger();
            }
        }
        CyclicBarrier go = new CyclicBarrier(2 * pairs, () -> roundStart.set(clock.incrementAndGet()));
        List<Future<?>> futures = new ArrayList<>();
        for (int th = 0; th < 2 * pairs; th++) {
            int pair = th / 2;
            int side = th % 2;
            futures.add(pool.submit(() -> {
                for (int round = 0; round < rounds; round++) {
                    go.await(30, TimeUnit.SECONDS);
                    long shared = ((long) round << 20) | (pair + 16); // never 0: 0 is folded onto 1
                    // Shared row plus private rows in other buckets, in a different order on each side.
                    long[] ws = side == 0
                            ? rows(shared, shared + 7_000_001L, shared + 9_000_003L)
                            : rows(shared + 8_000_005L, shared, shared + 6_000_007L);
                    if (t.checkAndRecord(roundStart.get(), ws, clock.incrementAndGet()) == COMMITTED) {
                        results[round][pair].incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get(50, TimeUnit.SECONDS);
        }
        for (int round = 0; round < rounds; round++) {
            for (int p = 0; p < pairs; p++) {
                assertEquals(1, results[round][p].get(), "round " + round + " pair " + p);
            }
        }
    }

    /** One committed transaction, for the after-the-fact history check. */
    private record Committed(long txId, long commitTs, long[] rows) {
    }

    /**
     * Many threads, a small row universe, random write sets touching many buckets in random order (deadlock
     * freedom), on a roomy and on a tiny table (evictions, NO_ROOM). Afterwards, no two committed transactions
     * that share a row may be concurrent: sorted by commit timestamp, each one started after the previous one
     * committed.
     */
    @Test
    void concurrentHistoryHasNoConcurrentWritersOfTheSameRow() throws Exception {
        checkHistory(new ConflictTable(1 << 12, 8, new LowWaterMark()), 8, 4_000);
        checkHistory(new ConflictTable(64, 4, new LowWaterMark()), 8, 4_000);
    }

    private void checkHistory(ConflictTable t, int threads, int perThread) throws Exception {
        AtomicLong clock = new AtomicLong(1000);
        ConcurrentLinkedQueue<Committed> history = new ConcurrentLinkedQueue<>();
        AtomicInteger aborted = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                futures.add(workers.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < perThread; i++) {
                        long txId = clock.incrementAndGet();
                        long[] ws = new long[1 + random.nextInt(5)];
                        for (int k = 0; k < ws.length; k++) {
                            ws[k] = 2 + random.nextInt(300);
                        }
                        if (random.nextInt(4) == 0) {
                            Thread.yield(); // let others commit inside this transaction's lifetime
                        }
                        long commitTs = clock.incrementAndGet();
                        if (t.checkAndRecord(txId, ws, commitTs) == COMMITTED) {
                            history.add(new Committed(txId, commitTs, ws));
                        } else {
                            aborted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(50, TimeUnit.SECONDS);
            }
        } finally {
            workers.shutdownNow();
        }
        Map<Long, List<Committed>> byRow = new HashMap<>();
        for (Committed c : history) {
            for (long row : c.rows()) {
                List<Committed> l = byRow.computeIfAbsent(row, k -> new ArrayList<>());
                if (l.isEmpty() || l.get(l.size() - 1) != c) {
                    l.add(c);
                }
            }
        }
        for (Map.Entry<Long, List<Committed>> e : byRow.entrySet()) {
            List<Committed> writers = new ArrayList<>(e.getValue());
            writers.sort((a, b) -> Long.compare(a.commitTs(), b.commitTs()));
            for (int i = 1; i < writers.size(); i++) {
                Committed prev = writers.get(i - 1);
                Committed next = writers.get(i);
                assertTrue(next.txId() > prev.commitTs(), "row " + e.getKey() + ": tx " + next.txId()
                        + " committed at " + next.commitTs() + " overlaps tx " + prev.txId() + " committed at "
                        + prev.commitTs());
            }
        }
        assertTrue(history.size() > 100, "only " + history.size() + " commits, " + aborted.get() + " aborts");
    }
}
