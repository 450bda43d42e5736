package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit path checks fences without a lock and validates afterwards (optimistic read of the fence order): a
 * fence taken between a commit's fence check and its commit timestamp must still stop it. Forced: the committing
 * thread is held inside the oracle's clock read, after the fence check and before its timestamp exists, while
 * another thread takes the fence.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FenceOrderingTest {
    private static final long TABLE = TransactionManagerCoreTest.TABLE_A;

    /** Holds the one armed thread in its next clock read until released. */
    private static final class HoldingClock implements Clock {
        private volatile Thread armed;
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        @Override
        public long millis() {
            if (Thread.currentThread() == armed) {
                armed = null;
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return System.currentTimeMillis();
        }
    }

    @Test
    void aFenceTakenWhileACommitDrawsItsTimestampAbortsTheCommit() throws Exception {
        HoldingClock clock = new HoldingClock();
        TmConfig config = TransactionManagerCoreTest.small(Map.of());
        try (TransactionManagerCore tm = TransactionManagerCore.start(config, clock, new InMemoryTimestampStorage(),
                FenceStore.inMemory(), Lease.ALWAYS_HELD)) {
            long writer = tm.begin();
            CompletableFuture<CommitDecision> commit = new CompletableFuture<>();
            Thread committer = new Thread(() -> {
                clock.armed = Thread.currentThread();
                try {
                    commit.complete(tm.commit(writer, new long[] {1}, new long[] {TABLE}));
                } catch (Throwable e) {
                    commit.completeExceptionally(e);
                }
            });
            committer.start();
            assertTrue(clock.held.await(10, TimeUnit.SECONDS), "the commit never drew its timestamp");

            // The commit has checked the fences and is drawing its timestamp, holding no lock: the fence goes
            // through at once, and the commit, which did not see it, must notice and look again.
            long fenceTs = tm.fence(TABLE);
            clock.release.countDown();
            CommitDecision decision = commit.get(10, TimeUnit.SECONDS);
            assertTrue(writer < fenceTs);
            assertEquals(AbortReason.FENCE, decision.abortReason(), "the writer started before fence " + fenceTs
                    + " and got " + decision + ": committed above the fence, its writes would be missing from the"
                    + " index built at the fence");
        }
    }
}
