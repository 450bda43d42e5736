package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pending-status question about a transaction whose commit is being decided waits for the decision, bounded and
 * without a thread: the commit here holds in the timestamp storage's compare-and-set (a new epoch), as it would on a
 * slow ZooKeeper under HA. Overlapping commit calls of one transaction (a resent request) each settle their own
 * in-progress mark.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecisionLogTest {
    private static final long[] ROW = {42};
    private static final long[] TABLE = {TransactionManagerCoreTest.TABLE_A};

    private final ManualClock clock = new ManualClock(TransactionManagerCoreTest.MILLIS);
    private final LatchedTimestampStorage storage = new LatchedTimestampStorage();
    private TransactionManagerCore tm;
    private long writer;
    private long reader;

    @AfterEach
    void release() {
        storage.open();
        if (tm != null) {
            tm.close();
        }
    }

    @Test
    void questionWhileTheCommitWaitsOnStorageIsAnsweredUnknownAfterTheBound() throws Exception {
        long boundMillis = 300;
        startTm(boundMillis);
        CompletableFuture<CommitDecision> commit = commitHeldInStorage();
        long asked = System.nanoTime();
        PendingStatus status = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> tm.pendingStatus(writer, reader), "the question waited past its bound for the commit");
        assertEquals(PendingStatus.Kind.UNKNOWN, status.kind());
        assertTrue(System.nanoTime() - asked >= TimeUnit.MILLISECONDS.toNanos(boundMillis),
                "UNKNOWN before the bound: the question did not wait for the decision");
        assertFalse(commit.isDone(), "the commit is still held in the storage");

        storage.open();
        CommitDecision decision = commit.get(10, TimeUnit.SECONDS);
        assertTrue(decision.isCommitted(), decision.toString());
        assertEquals(PendingStatus.decided(decision.commitTimestamp()).toString(),
                tm.pendingStatus(writer, reader).toString());
    }

    @Test
    void questionAskedBeforeTheStorageAnswersGetsTheDecisionOnceTheCommitFinishes() throws Exception {
        startTm(TimeUnit.MINUTES.toMillis(1));
        CompletableFuture<CommitDecision> commit = commitHeldInStorage();
        CompletableFuture<PendingStatus> status = tm.pendingStatusAsync(writer, reader);
        assertFalse(status.isDone(), "answered while the decision was in progress: " + status.getNow(null));

        storage.open();
        CommitDecision decision = commit.get(10, TimeUnit.SECONDS);
        assertTrue(decision.isCommitted(), decision.toString());
        PendingStatus answer = status.get(10, TimeUnit.SECONDS);
        assertEquals(PendingStatus.Kind.DECIDED, answer.kind());
        assertEquals(decision.commitTimestamp(), answer.commitTs());
    }

    @Test
    void questionAboutACommitThatAbortsAfterTheStorageAnswersIsNotDecided() throws Exception {
        startTm(TimeUnit.MINUTES.toMillis(1));
        long rival = tm.begin();
        assertTrue(tm.commit(rival, ROW, TABLE).isCommitted()); // the writer's commit will conflict with it
        CompletableFuture<CommitDecision> commit = commitHeldInStorage();
        CompletableFuture<PendingStatus> status = tm.pendingStatusAsync(writer, reader);
        assertFalse(status.isDone(), "answered while the decision was in progress: " + status.getNow(null));

        storage.open();
        assertEquals(AbortReason.CONFLICT, commit.get(10, TimeUnit.SECONDS).abortReason());
        assertEquals(PendingStatus.Kind.NOT_DECIDED, status.get(10, TimeUnit.SECONDS).kind());
    }

    @Test
    void questionWaitsForEveryOverlappingCommitCallOfTheTransaction() throws Exception {
        DecisionLog log = new DecisionLog(16, 0, TimeUnit.MINUTES.toMillis(1));
        log.deciding(5);
        log.deciding(5); // a resent commit overlaps the first
        CompletableFuture<PendingStatus> status = log.status(5);
        log.abandoned(5);
        assertFalse(status.isDone(), "answered while the resent commit was still deciding: " + status.getNow(null));
        log.decided(5, 9);
        assertEquals(PendingStatus.decided(9).toString(), status.get(10, TimeUnit.SECONDS).toString());
        assertEquals(PendingStatus.Kind.NOT_DECIDED, log.status(6).get().kind());
        assertEquals(PendingStatus.Kind.UNKNOWN, log.status(0).get().kind(), "at the epoch base");
    }

    /** A TM whose pending-status questions wait at most {@code boundMillis}, and its {@link #writer}, {@link #reader}. */
    private void startTm(long boundMillis) throws TmException {
        tm = TransactionManagerCore.start(
                TransactionManagerCoreTest.small(Map.of(TmConfig.TIMESTAMP_RESERVATION_MS, "1")), clock, storage,
                FenceStore.inMemory(), Lease.ALWAYS_HELD, boundMillis);
        writer = tm.begin();
        reader = tm.begin();
    }

    /** Commits {@link #writer} on another thread and returns once the commit holds in the storage. */
    private CompletableFuture<CommitDecision> commitHeldInStorage() throws InterruptedException {
        storage.arm();
        clock.advance(10); // past the 1 ms epoch: the commit timestamp needs a compare-and-set, which holds
        CompletableFuture<CommitDecision> commit = CompletableFuture.supplyAsync(() -> {
            try {
                return tm.commit(writer, ROW, TABLE);
            } catch (TmException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(storage.awaitBlockedWrite(10, TimeUnit.SECONDS), "the commit never reached the storage");
        return commit;
    }

    /**
     * Two commit calls of one transaction overlap (a resent request) and the one that finishes first aborts: the
     * other's decision is still recorded and returned (the log counts calls in progress per transaction). Once the
     * first call's abandonment removed the single shared in-progress mark, and the other call threw
     * NullPointerException out of commit() after the conflict table had recorded its commit.
     */
    @Test
    void overlappingCommitsOfOneTransactionDoNotThrow() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> pausedThread = new AtomicReference<>();
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
            FutureTask<CommitDecision> first = new FutureTask<>(
                    () -> tm.commit(tx, new long[] {5}, new long[] {1}));
            Thread t = new Thread(first);
            pausedThread.set(t);
            t.start();
            assertTrue(inside.await(10, TimeUnit.SECONDS)); // first call marked in progress, paused for its commit ts
            assertFalse(tm.commit(tx, new long[] {7}, new long[] {1}).isCommitted()); // second call aborts
            release.countDown();
            CommitDecision d = first.get(10, TimeUnit.SECONDS); // NullPointerException here before the fix
            assertTrue(d.isCommitted());
        }
    }
}
