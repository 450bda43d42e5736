package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.phoenixtxn.tm.ConflictTable.Result.COMMITTED;
import static io.phoenixtxn.tm.ConflictTable.Result.CONFLICT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The conflict table (and the TM's whole commit path) against a simple reference model: a full history of every
 * commit, never forgetting anything. No false commit ever, whatever the table forgets: two committed transactions
 * that wrote a common row never overlap ({@code [conflictsSince, commitTs]} intervals are disjoint). Randomized over
 * table shapes from one way to roomy, write sets with duplicates and hash 0, replay windows ({@code conflictsSince}
 * below the start), commit timestamps recorded out of the order they were drawn (as concurrent commits do), and real
 * threads. Seeds are printed in failure messages.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConflictTableReferenceModelTest {

    /** One transaction as the model sees it. */
    private record Tx(long since, long start, long commitTs, long[] rows) {
        Tx(long since, long commitTs, long[] rows) {
            this(since, since, commitTs, rows);
        }

        @Override
        public String toString() {
            return "tx(since " + since + ", start " + start + ", commit " + commitTs + ", rows "
                    + Arrays.toString(rows) + ")";
        }
    }

    /**
     * Transactions take their commit timestamp, then wait a random while before the table sees them (a commit
     * drawn, then descheduled): the table decides them in another order than their timestamps. The reference, full
     * history in the order the table saw them, says whether each one conflicts; the table may abort more (NO_ROOM,
     * and conflicts when it is too small), never commit a conflicting one, and never claim a conflict that is not.
     */
    @Test
    void outOfOrderDecisionsNeverCommitAConflictingWriteSet() {
        int[][] shapes = {{1, 1}, {2, 2}, {4, 4}, {8, 2}, {16, 4}, {64, 8}, {256, 16}, {1 << 16, 16}};
        long seed = 20_261_122L;
        for (int[] shape : shapes) {
            for (int round = 0; round < 4; round++) {
                runOutOfOrder(shape[0], shape[1], seed++, shape[0] >= 1 << 16);
            }
        }
    }

    private static void runOutOfOrder(int entries, int ways, long seed, boolean roomy) {
        Random random = new Random(seed);
        LowWaterMark lwm = new LowWaterMark();
        ConflictTable table = new ConflictTable(entries, ways, lwm);
        Map<Long, List<Tx>> recordedByRow = new HashMap<>();
        List<Tx> drawn = new ArrayList<>();
        List<Long> running = new ArrayList<>();
        long clock = 1_000;
        int universe = 2 + random.nextInt(3 * entries + 40);
        int committed = 0;
        int aborted = 0;
        String where = "seed " + seed + ", " + entries + " entries, " + ways + " ways";
        for (int step = 0; step < 20_000; step++) {
            int action = random.nextInt(10);
            if (action < 3 || running.size() < 2) {
                running.add(clock += 1 + random.nextInt(3));
            } else if (action < 7 || drawn.isEmpty()) {
                long txId = running.remove(random.nextInt(running.size()));
                // A replay validates from an earlier start.
                long since = random.nextInt(8) == 0 ? Math.max(1, txId - random.nextInt(200)) : txId;
                long[] rows = new long[1 + random.nextInt(random.nextInt(8) == 0 ? 40 : 6)];
                for (int i = 0; i < rows.length; i++) {
                    rows[i] = random.nextInt(20) == 0 ? 0 : random.nextInt(universe); // 0 is the empty marker
                }
                if (rows.length > 1 && random.nextBoolean()) {
                    rows[rows.length - 1] = rows[0]; // duplicates
                }
                drawn.add(new Tx(since, clock += 1 + random.nextInt(3), rows));
            } else {
                // The table sees one of the drawn commits, not necessarily the oldest.
                Tx tx = drawn.remove(random.nextInt(Math.min(drawn.size(), 1 + random.nextInt(6))));
                boolean conflicts = false;
                for (long row : tx.rows()) {
                    for (Tx other : recordedByRow.getOrDefault(row, List.of())) {
                        conflicts |= other.commitTs() > tx.since();
                    }
                }
                ConflictTable.Result result = table.checkAndRecord(tx.since(), tx.rows(), tx.commitTs());
                String what = where + ", step " + step + ", since " + tx.since() + " commit " + tx.commitTs()
                        + " rows " + Arrays.toString(tx.rows());
                if (conflicts) {
                    assertNotEquals(COMMITTED, result, "false commit: " + what);
                } else if (roomy) {
                    assertEquals(COMMITTED, result, "a table that never evicts must decide like the reference: "
                            + what);
                } else {
                    assertNotEquals(CONFLICT, result, "conflict the full history does not have: " + what);
                }
                if (result == COMMITTED) {
                    committed++;
                    for (long row : distinct(tx.rows())) {
                        recordedByRow.computeIfAbsent(row, r -> new ArrayList<>()).add(tx);
                    }
                } else {
                    aborted++;
                }
            }
        }
        assertTrue(committed > 500, where + ": only " + committed + " commits, " + aborted + " aborts");
    }

    /** Many threads on one small table (constant eviction) or a roomy one; afterwards, no two writers overlap. */
    @Test
    void concurrentCommitsOnTinyAndRoomyTablesNeverOverlapOnARow() throws Exception {
        long seed = 7_000;
        for (int[] shape : new int[][] {{4, 4}, {16, 2}, {64, 8}, {1 << 14, 16}}) {
            ConflictTable table = new ConflictTable(shape[0], shape[1], new LowWaterMark());
            AtomicLong clock = new AtomicLong(1_000);
            List<Tx> committed = runThreads(8, 3_000, seed++, (random, rows) -> {
                long since = clock.incrementAndGet();
                maybeYield(random);
                long commitTs = clock.incrementAndGet();
                maybeYield(random); // drawn, then descheduled before the table sees it
                return table.checkAndRecord(since, rows, commitTs) == COMMITTED ? new Tx(since, commitTs, rows)
                        : null;
            });
            assertNoOverlappingWriters(committed, "table " + Arrays.toString(shape));
        }
    }

    /**
     * The same check through the whole commit path of the TM (oracle, open transactions, decision log, optimistic
     * fence ordering, conflict table, replays), with a tiny conflict table and a thread taking fences: no two
     * committed writers of a row overlap, and every writer of a fenced table that started before the fence
     * committed below it.
     */
    @Test
    void theTmsCommitPathNeverOverlapsWritersAndRespectsFences() throws Exception {
        TmConfig config = TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "16", TmConfig.CONFLICT_ASSOCIATIVITY,
                "4")::get);
        long table = 0x7AB1EL;
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(config)) {
            ConcurrentLinkedQueue<Long> fences = new ConcurrentLinkedQueue<>();
            Thread fencer = new Thread(() -> {
                try {
                    for (int i = 0; i < 40 && !Thread.currentThread().isInterrupted(); i++) {
                        fences.add(tm.fence(table));
                        Thread.yield();
                    }
                } catch (TmException e) {
                    throw new IllegalStateException(e);
                }
            });
            fencer.start();
            List<Tx> committed = runThreads(8, 2_000, 99, (random, rows) -> {
                long since = 0;
                if (random.nextInt(6) == 0) {
                    since = tm.begin(); // a replay: validates from an earlier transaction's start
                    tm.finished(new long[] {since});
                }
                long txId = tm.begin();
                since = since == 0 ? txId : since;
                maybeYield(random);
                CommitDecision decision = tm.commit(txId, since, rows, new long[] {table});
                tm.finished(new long[] {txId});
                return decision.isCommitted() ? new Tx(since, txId, decision.commitTimestamp(), rows) : null;
            });
            fencer.join(TimeUnit.SECONDS.toMillis(60));
            assertNoOverlappingWriters(committed, "TM with a 16-entry table");
            assertTrue(fences.size() == 40, "fences taken: " + fences.size());
            for (long fence : fences) {
                for (Tx tx : committed) {
                    if (tx.start() < fence) {
                        assertTrue(tx.commitTs() < fence, "writer " + tx + " started before fence " + fence
                                + " but committed above it");
                    }
                }
            }
        }
    }

    @FunctionalInterface
    private interface Attempt {
        /** One transaction over {@code rows}; the committed transaction, or null if it aborted. */
        Tx run(SplittableRandom random, long[] rows) throws Exception;
    }

    private static List<Tx> runThreads(int threads, int perThread, long seed, Attempt attempt) throws Exception {
        ConcurrentLinkedQueue<Tx> history = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        SplittableRandom seeds = new SplittableRandom(seed);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom random = seeds.split();
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < perThread; i++) {
                        long[] rows = new long[1 + random.nextInt(5)];
                        for (int k = 0; k < rows.length; k++) {
                            rows[k] = random.nextInt(60); // small universe: many real conflicts
                        }
                        Tx tx = attempt.run(random, rows);
                        if (tx != null) {
                            history.add(tx);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(history.size() > 100, "only " + history.size() + " commits (seed " + seed + ")");
        return new ArrayList<>(history);
    }

    private static void maybeYield(SplittableRandom random) {
        if (random.nextInt(4) == 0) {
            Thread.yield();
        }
    }

    /** For every row, the committed writers' [since, commitTs] intervals are pairwise disjoint. */
    private static void assertNoOverlappingWriters(List<Tx> committed, String where) {
        Map<Long, List<Tx>> byRow = new HashMap<>();
        for (Tx tx : committed) {
            for (long row : distinct(tx.rows())) {
                byRow.computeIfAbsent(row, r -> new ArrayList<>()).add(tx);
            }
        }
        for (Map.Entry<Long, List<Tx>> e : byRow.entrySet()) {
            List<Tx> writers = e.getValue();
            writers.sort((a, b) -> Long.compare(a.commitTs(), b.commitTs()));
            for (int i = 1; i < writers.size(); i++) {
                Tx earlier = writers.get(i - 1);
                Tx later = writers.get(i);
                if (later.since() < earlier.commitTs()) {
                    fail(where + ": false commit on row " + e.getKey() + ": " + later + " overlaps " + earlier);
                }
            }
        }
    }

    private static long[] distinct(long[] rows) {
        return Arrays.stream(rows).distinct().toArray();
    }
}
