package io.phoenixtxn.tm;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GC horizon: every transaction the TM began (and every fence) holds it until its client finishes it or stops
 * renewing its lease; an expired transaction cannot commit; a new primary publishes no horizon until clients had a
 * lease to re-announce theirs; the commit-point horizon lags the GC horizon by the configured time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionHorizonTest {
    private static final long LEASE_MS = 1_000;
    private static final long LAG_MS = 5_000;
    private static final long[] ROW = {42};
    private static final long[] TABLE = {7};
    private final AtomicLong nanos = new AtomicLong(1_000_000);

    private TransactionManagerCore start(TimestampStorage storage, FenceStore fences) throws TmException {
        TmConfig config = TransactionManagerCoreTest.small(Map.of()).withTransactionLease(LEASE_MS, LAG_MS);
        return TransactionManagerCore.start(config, Clock.SYSTEM, storage, fences, Lease.ALWAYS_HELD, 50,
                nanos::get);
    }

    private void advanceMillis(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
    }

    @Test
    void anOpenReaderHoldsTheHorizonUntilItsClientFinishesIt() throws Exception {
        try (TransactionManagerCore tm = start(new InMemoryTimestampStorage(), FenceStore.inMemory())) {
            long reader = tm.begin();
            for (int i = 0; i < 20; i++) {
                long writer = tm.begin();
                assertTrue(tm.commit(writer, ROW, TABLE).isCommitted());
                tm.finished(new long[] {writer});
            }
            assertEquals(reader, tm.horizon().gc(), "a read-only transaction that never called the TM again");
            tm.finished(new long[] {reader});
            assertTrue(tm.horizon().gc() > reader);
            assertEquals(0, tm.openTransactions());
        }
    }

    @Test
    void aTransactionWhoseClientStopsRenewingExpiresAndCannotCommit() throws Exception {
        try (TransactionManagerCore tm = start(new InMemoryTimestampStorage(), FenceStore.inMemory())) {
            long alive = tm.begin();
            long crashed = tm.begin();
            advanceMillis(600);
            assertArrayEquals(new long[0], tm.keepAlive(new long[] {alive}));
            advanceMillis(600);
            assertEquals(alive, tm.horizon().gc(), "the crashed client's transaction no longer holds it");
            assertArrayEquals(new long[] {crashed}, tm.keepAlive(new long[] {alive, crashed}),
                    "the client learns its transaction expired");
            CommitDecision late = tm.commit(crashed, ROW, TABLE);
            assertSame(AbortReason.EXPIRED, late.abortReason());
            assertTrue(late.abortReason().explanation().contains("snapshot too old"));
            assertTrue(tm.commit(alive, ROW, TABLE).isCommitted());
        }
    }

    @Test
    void aFenceHoldsTheHorizonForItsPopulation() throws Exception {
        try (TransactionManagerCore tm = start(new InMemoryTimestampStorage(), FenceStore.inMemory())) {
            long fence = tm.fence(7);
            tm.finished(new long[] {tm.begin()});
            assertEquals(fence, tm.horizon().gc());
            tm.finished(new long[] {fence});
            assertTrue(tm.horizon().gc() > fence);
        }
    }

    @Test
    void aNewPrimaryWaitsALeaseForClientsToReAnnounceTheirTransactions() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        FenceStore fences = FenceStore.inMemory();
        long reader;
        try (TransactionManagerCore first = start(storage, fences)) {
            reader = first.begin();
            first.finished(new long[] {first.begin()});
            assertEquals(reader, first.horizon().gc());
        }
        try (TransactionManagerCore second = start(storage, fences)) {
            assertFalse(second.horizon().isKnown(), "it does not know the old epoch's readers yet");
            assertArrayEquals(new long[0], second.keepAlive(new long[] {reader}), "adopted during the grace period");
            advanceMillis(LEASE_MS / 2); // the client renews well within its lease
            second.keepAlive(new long[] {reader});
            advanceMillis(LEASE_MS / 2 + 1);
            second.keepAlive(new long[] {reader});
            assertEquals(reader, second.horizon().gc(), "the re-announced reader holds the new primary's horizon");
            assertSame(AbortReason.BELOW_LOW_WATER_MARK, second.commit(reader, ROW, TABLE).abortReason(),
                    "reading on is fine; committing writes of the old epoch is not");
            assertArrayEquals(new long[] {12345L}, second.keepAlive(new long[] {12345L}),
                    "after the grace period an unknown transaction is expired");
        }
    }

    @Test
    void theCommitPointHorizonIsTheGcHorizonOfALagAgo() throws Exception {
        try (TransactionManagerCore tm = start(new InMemoryTimestampStorage(), FenceStore.inMemory())) {
            long t1 = tm.begin();
            tm.finished(new long[] {t1});
            Horizon first = tm.horizon();
            assertTrue(first.gc() > t1);
            assertTrue(first.commitPointSafe() < first.gc(), "nothing has been in force for the lag yet");
            advanceMillis(LAG_MS);
            long t2 = tm.begin();
            tm.finished(new long[] {t2});
            Horizon second = tm.horizon();
            assertEquals(first.gc(), second.commitPointSafe());
            assertTrue(second.gc() > t2);
            advanceMillis(LAG_MS);
            assertEquals(second.gc(), tm.horizon().commitPointSafe());
        }
    }

    /**
     * A bare timestamp (a region server bootstrapping its local version clock, or reserving fast-path slots) is
     * no transaction: nothing finishes it, so it must never hold the GC horizon.
     */
    @Test
    void aBareTimestampHoldsNoHorizon() throws Exception {
        try (TransactionManagerCore tm = start(new InMemoryTimestampStorage(), FenceStore.inMemory())) {
            long reader = tm.begin();
            long bare = tm.timestamp();
            assertTrue(bare > reader && TimestampLayout.isSlotStart(bare), "a fresh slot start: " + bare);
            assertEquals(1, tm.openTransactions(), "only the reader is open");
            tm.finished(new long[] {reader});
            assertTrue(tm.horizon().gc() > bare, "nothing holds the horizon at or below the bare timestamp");
            assertTrue(tm.begin() > bare, "later timestamps follow it");
        }
    }
}
