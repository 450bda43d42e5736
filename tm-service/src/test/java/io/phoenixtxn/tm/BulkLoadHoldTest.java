package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.phoenixtxn.tm.TransactionManagerCoreTest.NO_ROWS;
import static io.phoenixtxn.tm.TransactionManagerCoreTest.TABLE_A;
import static io.phoenixtxn.tm.TransactionManagerCoreTest.TABLE_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk load holds its tables from its begin to its end, and its commit fences them: no other transaction commits
 * a write to them whose version could sort above the load's cells without having seen them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BulkLoadHoldTest {
    private static final long[] LOADED = {TABLE_A};

    /** The tables of a load's commit as its client sends them: marked, so a TM without the hold refuses it. */
    private static final long[] LOAD_COMMIT = {TransactionManager.BULK_LOAD_COMMIT, TABLE_A};

    /** A TM whose transactions hold a 1 s lease, on the given monotonic clock. */
    private static TransactionManagerCore withOneSecondLeases(AtomicLong nanos) throws TmException {
        TmConfig config = TransactionManagerCoreTest.small(Map.of(TmConfig.TRANSACTION_LEASE_MS, "1000"));
        return TransactionManagerCore.start(config, Clock.SYSTEM, new InMemoryTimestampStorage(),
                FenceStore.inMemory(), Lease.ALWAYS_HELD, DecisionLog.DEFAULT_WAIT_MILLIS, nanos::get);
    }

    private static long[] row(long hash) {
        return new long[] {hash};
    }

    @Test
    void writersOfAHeldTableAbortWhetherTheyBeganBeforeOrDuringTheLoad() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long before = tm.begin();
            long load = tm.beginBulkLoad(LOADED);
            long during = tm.begin();
            assertEquals(AbortReason.FENCE, tm.commit(before, row(1), LOADED).abortReason());
            assertEquals(AbortReason.FENCE, tm.commit(during, row(2), LOADED).abortReason());
            long other = tm.begin();
            assertTrue(tm.commit(other, row(3), new long[] {TABLE_B}).isCommitted(), "another table is not held");
            assertTrue(tm.commit(load, NO_ROWS, LOADED).isCommitted());
        }
    }

    @Test
    void theLoadsCommitFencesItsTablesAtItsCommitTimestamp() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long load = tm.beginBulkLoad(LOADED);
            long during = tm.begin();
            CommitDecision committed = tm.commit(load, NO_ROWS, LOADED);
            assertTrue(committed.isCommitted());
            // Began before the load was visible: it did not see the loaded rows, so it must not write over them.
            assertEquals(AbortReason.FENCE, tm.commit(during, row(1), LOADED).abortReason());
            long after = tm.begin();
            assertTrue(after > committed.commitTimestamp());
            assertTrue(tm.commit(after, row(1), LOADED).isCommitted(), "a transaction that sees the load writes");
        }
    }

    @Test
    void aLoadEndedWithoutACommitReleasesItsTables() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long load = tm.beginBulkLoad(LOADED);
            long writer = tm.begin();
            tm.finished(new long[] {load});
            assertTrue(tm.commit(writer, row(1), LOADED).isCommitted(), "an abandoned load holds nothing");
            assertEquals(AbortReason.EXPIRED, tm.commit(load, NO_ROWS, LOADED).abortReason());
        }
    }

    @Test
    void aLoadWhoseLeaseRanOutReleasesItsTables() throws Exception {
        AtomicLong nanos = new AtomicLong();
        try (TransactionManagerCore tm = withOneSecondLeases(nanos)) {
            long load = tm.beginBulkLoad(LOADED);
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(900));
            long writer = tm.begin();
            assertEquals(AbortReason.FENCE, tm.commit(writer, row(1), LOADED).abortReason());
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(200)); // the load's lease ran out, the writer's did not
            long next = tm.begin();
            assertTrue(tm.commit(next, row(1), LOADED).isCommitted(), "a crashed tool blocks no table past its lease");
            assertTrue(load < next);
        }
    }

    /** A lapsed lease is not revived by a late renewal: writers may have committed into the load's window. */
    @Test
    void aLoadWhoseLeaseLapsedCannotBeRenewedNorCommit() throws Exception {
        AtomicLong nanos = new AtomicLong();
        try (TransactionManagerCore tm = withOneSecondLeases(nanos)) {
            long load = tm.beginBulkLoad(LOADED);
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1100));
            long writer = tm.begin();
            assertTrue(tm.commit(writer, row(1), LOADED).isCommitted(), "the hold lapsed with the lease");
            org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {load}, tm.keepAlive(new long[] {load}),
                    "a late renewal does not revive it");
            assertEquals(AbortReason.EXPIRED, tm.commit(load, NO_ROWS, LOAD_COMMIT).abortReason());
        }
    }

    /** What a TM after a failover sees: a load commit it holds nothing for. */
    @Test
    void aLoadCommitThisTmHoldsNoLoadForIsRefused() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long notALoad = tm.begin(); // e.g. adopted from an earlier primary during the grace period
            assertEquals(AbortReason.EXPIRED, tm.commit(notALoad, NO_ROWS, LOAD_COMMIT).abortReason());
            long writer = tm.begin();
            assertTrue(tm.commit(writer, row(1), LOADED).isCommitted(), "and it fenced nothing");
        }
    }

    /** Phoenix's commit retry re-sends writes computed before the load: validated from there, they conflict. */
    @Test
    void aReplayOfWritesComputedBeforeTheLoadConflicts() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long original = tm.begin();
            long load = tm.beginBulkLoad(LOADED);
            CommitDecision loaded = tm.commit(load, NO_ROWS, LOAD_COMMIT);
            assertTrue(loaded.isCommitted());
            long replay = tm.begin();
            assertTrue(replay > loaded.commitTimestamp(), "above the load's fence");
            assertEquals(AbortReason.CONFLICT, tm.commit(replay, original, row(1), LOADED).abortReason());
            long unrelated = tm.begin();
            assertTrue(tm.commit(unrelated, original, row(2), new long[] {TABLE_B}).isCommitted(),
                    "a replay of another table's writes is unaffected");
        }
    }

    @Test
    void oneLoadPerTableAtATimeAndTheSecondNamesTheFirst() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long load = tm.beginBulkLoad(LOADED);
            TmException refused = assertThrows(TmException.class,
                    () -> tm.beginBulkLoad(new long[] {TABLE_B, TABLE_A}));
            assertTrue(refused.getMessage().contains("held by the bulk load of transaction " + load),
                    refused.getMessage());
            long other = tm.begin();
            assertTrue(tm.commit(other, row(1), new long[] {TABLE_B}).isCommitted(),
                    "the refused load held nothing, not even its free table");
            assertTrue(tm.commit(load, NO_ROWS, LOADED).isCommitted());
            long next = tm.beginBulkLoad(new long[] {TABLE_B, TABLE_A});
            assertTrue(tm.commit(next, NO_ROWS, new long[] {TABLE_B, TABLE_A}).isCommitted());
        }
    }

    @Test
    void anIndexFenceTakenDuringTheLoadAbortsTheLoad() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) {
            long load = tm.beginBulkLoad(LOADED);
            tm.fence(TABLE_A); // CREATE INDEX meanwhile: the new index has none of the load's rows
            assertEquals(AbortReason.FENCE, tm.commit(load, NO_ROWS, LOADED).abortReason());
            long writer = tm.begin();
            assertTrue(tm.commit(writer, row(1), LOADED).isCommitted(), "the aborted load released its table");
        }
    }
}
