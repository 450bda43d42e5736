package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Regression tests for defects the unit tests found (fixed in main code since). */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DefectRegressionTest {

    /**
     * EmbeddedTm.shared() after EmbeddedTm.shutdown() starts a core on a brand-new InMemoryTimestampStorage (via
     * TransactionManagerCore.startInMemory): the new epoch's low-water mark is 0 and its conflict table empty, so
     * a transaction begun on the old instance commits a write that conflicts with a commit made after it began.
     */
    @Test
    void embeddedTmRestartMustNotForgetConflicts() throws Exception {
        TmConfig config = TransactionManagerCoreTest.small(Map.of());
        EmbeddedTm.shutdown();
        try {
            TransactionManagerCore before = EmbeddedTm.shared(config);
            long t = before.begin();
            long u = before.begin();
            assertTrue(before.commit(u, new long[] {42}, new long[] {1}).isCommitted());
            EmbeddedTm.shutdown();
            TransactionManagerCore after = EmbeddedTm.shared(config);
            CommitDecision d = after.commit(t, new long[] {42}, new long[] {1});
            assertFalse(d.isCommitted(), "lost write-write conflict across EmbeddedTm restart: " + d);
        } finally {
            EmbeddedTm.shutdown();
        }
    }

    /** Same root cause: the restarted embedded TM can issue timestamps below ones the old instance issued. */
    @Test
    void embeddedTmRestartKeepsTimestampsMonotonic() throws Exception {
        TmConfig config = TransactionManagerCoreTest.small(Map.of());
        EmbeddedTm.shutdown();
        try {
            long last = 0;
            for (int i = 0; i < 2_000; i++) {
                last = EmbeddedTm.shared(config).begin(); // ~2 ms of slots: runs ahead of the wall clock
            }
            EmbeddedTm.shutdown();
            long next = EmbeddedTm.shared(config).begin();
            assertTrue(next > last, "restarted embedded TM went back from " + TimestampLayout.describe(last)
                    + " to " + TimestampLayout.describe(next));
        } finally {
            EmbeddedTm.shutdown();
        }
    }

    /**
     * TmConfig.positive lets any positive long through for ".ms" keys, and TimestampOracle multiplies it by
     * 1,000,000 (and adds it to a ~1.7e18 timestamp) without overflow checks: with a reservation above about
     * 7.5e12 ms the reservation bound wraps negative and begin() spins forever.
     */
    @Test
    void absurdReservationIsRejectedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TmConfig.from(
                Map.of(TmConfig.TIMESTAMP_RESERVATION_MS, "9300000000000")::get));
        assertTrue(e.getMessage().contains(TmConfig.TIMESTAMP_RESERVATION_MS), e.getMessage());
    }

    /**
     * DecisionLog.decided() compares {@code decisions.put(txId, commitTs) == DECIDING}: when two commit calls for
     * the same txId overlap (a resent request) and the first to finish aborts, its abandoned() removes the shared
     * DECIDING mark, put() returns null and the unboxing throws NullPointerException out of commit(), after the
     * conflict table already recorded the second call's commit.
     */
    @Test
    void overlappingCommitsOfOneTransactionDoNotThrow() throws Exception {
        java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Thread> pausedThread = new java.util.concurrent.atomic.AtomicReference<>();
        Clock clock = () -> {
            if (Thread.currentThread() == pausedThread.get()) {
                pausedThread.set(null);
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return System.currentTimeMillis();
        };
        try (TransactionManagerCore tm = TransactionManagerCore.start(TransactionManagerCoreTest.small(Map.of()),
                clock, new InMemoryTimestampStorage(), FenceStore.inMemory(), Lease.ALWAYS_HELD)) {
            long tx = tm.begin();
            assertTrue(tm.commit(tm.begin(), new long[] {7}, new long[] {1}).isCommitted()); // 7 conflicts for tx
            java.util.concurrent.FutureTask<CommitDecision> first = new java.util.concurrent.FutureTask<>(
                    () -> tm.commit(tx, new long[] {5}, new long[] {1}));
            Thread t = new Thread(first);
            pausedThread.set(t);
            t.start();
            assertTrue(inside.await(10, TimeUnit.SECONDS)); // first call marked DECIDING, paused for its commit ts
            assertFalse(tm.commit(tx, new long[] {7}, new long[] {1}).isCommitted()); // second call aborts
            release.countDown();
            CommitDecision d = first.get(10, TimeUnit.SECONDS); // NullPointerException here
            assertTrue(d.isCommitted());
        }
    }

    /**
     * TimestampOracle.extendIfBelow(h) does nothing when h exceeds half a reservation and the headroom is still
     * above half a reservation: extendReservation's own early return ignores the caller's headroom.
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
}
