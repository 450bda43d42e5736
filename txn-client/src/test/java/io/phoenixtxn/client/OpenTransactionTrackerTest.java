package io.phoenixtxn.client;

import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client half of the GC horizon against a real in-process TM. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenTransactionTrackerTest {
    private final TransactionManagerCore tm = TransactionManagerCore.startInMemory(
            TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "1024")::get));

    @AfterEach
    void close() {
        tm.close();
    }

    @Test
    void anEndedTransactionStopsHoldingTheHorizonOnceTheBatchIsSent() throws Exception {
        OpenTransactionTracker tracker = new OpenTransactionTracker(() -> tm, 60_000);
        Transaction reader = tracker.track(Transaction.begun(tm.begin()));
        Transaction other = tracker.track(Transaction.begun(tm.begin()));
        assertEquals(reader.txId(), tm.horizon().gc());
        tracker.ended(reader);
        tracker.ended(reader); // idempotent
        assertEquals(reader.txId(), tm.horizon().gc(), "not sent yet");
        tracker.flushFinished();
        assertEquals(other.txId(), tm.horizon().gc());
        assertEquals(1, tracker.openCount());
    }

    @Test
    void keepAliveRenewsOnlyOldTransactionsAndMarksTheOnesTheTmLetGo() throws Exception {
        OpenTransactionTracker tracker = new OpenTransactionTracker(() -> tm, 0); // every open one is due
        Transaction kept = tracker.track(Transaction.begun(tm.begin()));
        Transaction forgotten = tracker.track(Transaction.begun(tm.begin()));
        tm.finished(new long[] {forgotten.txId()}); // as if its lease ran out at the TM
        tracker.keepAlive();
        assertFalse(kept.isExpired());
        assertTrue(forgotten.isExpired());
        assertTrue(forgotten.childView().isExpired(), "sub-task views expire with their transaction");
        assertEquals(1, tracker.openCount());
        assertArrayEquals(new long[0], tm.keepAlive(new long[] {kept.txId()}));
    }

    /** Phoenix closes connections without rolling back: the transaction of a closed connection must let go. */
    @Test
    void aTransactionWhoseOwnerIsGoneIsEndedInsteadOfRenewed() throws Exception {
        OpenTransactionTracker tracker = new OpenTransactionTracker(() -> tm, 0);
        Transaction abandoned = tracker.track(Transaction.begun(tm.begin()));
        java.util.concurrent.atomic.AtomicBoolean connectionOpen = new java.util.concurrent.atomic.AtomicBoolean(true);
        OpenTransactionTracker.ownedBy(abandoned, connectionOpen::get);
        tracker.keepAlive();
        assertEquals(abandoned.txId(), tm.horizon().gc(), "still in use: renewed");
        connectionOpen.set(false);
        tracker.keepAlive();
        tracker.flushFinished();
        assertTrue(tm.horizon().gc() > abandoned.txId());
        assertEquals(0, tracker.openCount());
    }

    /**
     * A client that could not renew a transaction for the TM's lease cannot know it is still open there (a region
     * server with a stale horizon might then serve it collected data): it stops reading and committing on its own.
     * A renewal the TM acknowledges later proves it was still open, and restores it.
     */
    @Test
    void aTransactionTheClientCouldNotRenewForALeaseCountsAsExpiredUntilARenewalSucceeds() throws Exception {
        OpenTransactionTracker tracker = new OpenTransactionTracker(() -> tm, 0, 200);
        Transaction tx = tracker.track(Transaction.begun(tm.begin()));
        assertFalse(tx.isExpired());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!tx.isExpired() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(tx.isExpired(), "no renewal within the lease");
        tracker.keepAlive(); // the TM (60 s lease) still holds it
        assertFalse(tx.isExpired());
    }

    @Test
    void aTransactionDroppedWithoutEndingIsFinishedWhenCollected() throws Exception {
        OpenTransactionTracker tracker = new OpenTransactionTracker(() -> tm, 60_000);
        long leaked = beginAndDrop(tracker);
        Horizon horizon = tm.horizon();
        assertEquals(leaked, horizon.gc());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (tm.horizon().gc() == leaked && System.nanoTime() < deadline) {
            System.gc();
            tracker.flushFinished();
            Thread.onSpinWait();
        }
        assertTrue(tm.horizon().gc() > leaked, "a leaked transaction pinned the horizon");
    }

    private long beginAndDrop(OpenTransactionTracker tracker) throws Exception {
        return tracker.track(Transaction.begun(tm.begin())).txId();
    }
}
