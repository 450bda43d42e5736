package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.LostPrimacyException;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.TmEndpoint;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static io.phoenixtxn.tm.ha.HaTestSupport.LEASE_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A primary that is paused (not killed) past its lease: the backup takes over, and the old primary, when it runs
 * again, lets no commit out, cannot reserve timestamps, and halts.
 */
@Tag("slow")
class TmHaPauseTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    /** A commit decision a client received, and when. */
    private record Received(long atNanos, CommitDecision decision) {
    }

    @Test
    @Timeout(90)
    void aPrimaryPausedPastItsLeaseCommitsNothingAfterwards() throws Exception {
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), LEASE_MS);
        PausableClock clockA = new PausableClock();
        AtomicLong wallSkewA = new AtomicLong();
        Clock wallA = () -> System.currentTimeMillis() + wallSkewA.get();
        CompletableFuture<String> lossA = new CompletableFuture<>();
        HaSeams seamsA = new HaSeams(wallA, clockA, new HaListener() {
            @Override
            public void lostPrimacy(String reason) {
                lossA.complete(reason);
            }
        });
        TmHaService a = TmHaService.start(zk.newClient(), HaTestSupport.tmConfig(settings),
                HaTestSupport.serverConfig(settings), HaConfig.from(settings), seamsA);
        TmEndpoint endpointA = a.awaitPrimary(10, TimeUnit.SECONDS);
        TmHaService b = TmHaService.start(zk.newClient(), HaTestSupport.tmConfig(settings),
                HaTestSupport.serverConfig(settings), HaConfig.from(settings));
        TransactionManagerCore oldCore = a.transactionManager().orElseThrow();

        List<Received> received = new CopyOnWriteArrayList<>();
        AtomicInteger failedCalls = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Semaphore decisions = new Semaphore(0);
        AtomicLong newEpoch = new AtomicLong(Long.MAX_VALUE);
        CompletableFuture<Long> firstCommitOnNewPrimary = new CompletableFuture<>();
        Thread workload = new Thread(() -> {
            try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
                while (!stop.get()) {
                    try {
                        long tx = client.begin();
                        CommitDecision d = client.commit(tx, new long[] {ThreadLocalRandom.current().nextLong()},
                                new long[] {1});
                        long at = System.nanoTime();
                        received.add(new Received(at, d));
                        if (d.isCommitted() && d.commitTimestamp() > newEpoch.get()) {
                            firstCommitOnNewPrimary.complete(at);
                        }
                        decisions.release();
                    } catch (TmException e) {
                        failedCalls.incrementAndGet();
                    }
                }
            } catch (TmException e) {
                throw new IllegalStateException(e);
            }
        }, "workload");
        try {
            workload.start();
            assertTrue(decisions.tryAcquire(50, 10, TimeUnit.SECONDS), "the client workload never got going");
            long inFlightTx = oldCore.begin();
            CompletableFuture<CommitDecision> inFlight = new CompletableFuture<>();
            Thread committer = new Thread(() -> {
                try {
                    inFlight.complete(oldCore.commit(inFlightTx, new long[] {42}, new long[] {7}));
                } catch (Throwable t) {
                    inFlight.completeExceptionally(t);
                }
            }, "old-primary-committer");
            // The commit reads the lease clock twice: first on entry, last just before its decision leaves. The
            // process freezes right there, after the commit got its timestamp and passed conflict detection.
            clockA.pauseOnRead(committer, 2);
            committer.start();
            clockA.awaitPaused();
            long pausedAt = System.nanoTime();

            TmEndpoint endpointB = b.awaitPrimary(15, TimeUnit.SECONDS);
            assertTrue(endpointB.epoch() > endpointA.epoch(), endpointB + " after " + endpointA);
            newEpoch.set(endpointB.epoch());
            clockA.resume();
            long resumedAt = System.nanoTime();

            // The decision made before the pause must not leave after it.
            assertEquals(AbortReason.LEASE_LOST, inFlight.get(10, TimeUnit.SECONDS).abortReason());
            // Anything else the old primary is asked is refused.
            assertThrows(TmException.class, oldCore::begin);
            assertThrows(TmException.class, () -> oldCore.commit(inFlightTx, new long[] {43}, new long[] {7}));
            String reason = lossA.get(10, TimeUnit.SECONDS);
            assertTrue(reason.contains("lease"), reason);
            assertFalse(a.isPrimary());
            assertTrue(b.isPrimary());

            // Every timestamp the old primary issued is at or below the new epoch's base...
            assertTrue(oldCore.oracle().last() <= endpointB.epoch());
            // ...and its next reservation fails: the new primary moved the max timestamp on.
            wallSkewA.addAndGet(60_000);
            assertThrows(LostPrimacyException.class, () -> oldCore.oracle().next());

            // The client kept going through the failover without being told anything.
            long firstOnB = firstCommitOnNewPrimary.get(15, TimeUnit.SECONDS);
            System.out.printf("HA pause failover (primary frozen -> first commit decided by the new primary): %d ms"
                    + " with a %d ms lease%n", TimeUnit.NANOSECONDS.toMillis(firstOnB - pausedAt), LEASE_MS);
            // Keep the workload on the new primary a little longer, so that a late old-primary answer would show.
            decisions.drainPermits();
            assertTrue(decisions.tryAcquire(50, 10, TimeUnit.SECONDS));
            stop.set(true);
            workload.join(10_000);
            int leaseLost = 0;
            for (Received r : received) {
                CommitDecision d = r.decision();
                if (d.isCommitted() && d.commitTimestamp() <= endpointB.epoch()) {
                    assertTrue(r.atNanos() < resumedAt, "the old primary let a commit out after its pause: " + d);
                }
                if (!d.isCommitted() && d.abortReason() == AbortReason.LEASE_LOST) {
                    leaseLost++;
                }
            }
            System.out.printf("Pause test workload: %d decisions, %d aborted LEASE_LOST, %d calls failed during"
                    + " the failover%n", received.size(), leaseLost, failedCalls.get());
        } finally {
            stop.set(true);
            clockA.resume();
            workload.join(10_000);
            b.close();
            a.close();
        }
    }
}
