package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.TmEndpoint;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.phoenixtxn.tm.ha.HaTestSupport.LEASE_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Primary/backup against a real ZooKeeper: crash-like failover, graceful handover, fences, bad quorum. */
@Tag("slow")
class TmHaServiceTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    private static TmHaService startTm(CuratorFramework client, Function<String, String> settings, HaSeams seams)
            throws TmException {
        return TmHaService.start(client, HaTestSupport.tmConfig(settings), HaTestSupport.serverConfig(settings),
                HaConfig.from(settings), seams);
    }

    /** Listener that completes when the TM loses primacy. */
    private static final class LossWatch implements HaListener {
        final CompletableFuture<String> lost = new CompletableFuture<>();

        @Override
        public void lostPrimacy(String reason) {
            lost.complete(reason);
        }
    }

    @Test
    @Timeout(60)
    void killingThePrimaryHandsOverToTheBackupAndClientsFollow() throws Exception {
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), LEASE_MS);
        CuratorFramework zkA = zk.newClient();
        LossWatch lossA = new LossWatch();
        TmHaService a = startTm(zkA, settings, HaSeams.defaults().withListener(lossA));
        TmEndpoint endpointA = a.awaitPrimary(10, TimeUnit.SECONDS);
        TmHaService b = startTm(zk.newClient(), settings, HaSeams.defaults());
        try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
            assertFalse(b.isPrimary(), "only one primary");
            assertTrue(b.endpoint().isEmpty(), "a backup has no listening socket");

            long table = 77;
            long maxBefore = 0;
            for (int i = 0; i < 200; i++) {
                long tx = client.begin();
                CommitDecision d = client.commit(tx, new long[] {i}, new long[] {table});
                assertTrue(d.isCommitted(), d.toString());
                maxBefore = Math.max(maxBefore, Math.max(tx, d.commitTimestamp()));
            }
            long openOnOldPrimary = client.begin();
            long fence = client.fence(table);
            maxBefore = Math.max(maxBefore, Math.max(openOnOldPrimary, fence));

            // Crash-like: the primary's ZooKeeper session goes away; it can no longer renew and halts itself.
            long killedAt = System.nanoTime();
            zkA.close();
            long firstAfter = HaTestSupport.beginOnNewPrimary(client, b, 15_000);
            long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            System.out.printf("HA failover (primary's ZooKeeper session closed -> first BEGIN on the new primary):"
                    + " %d ms with a %d ms lease%n", failoverMs, LEASE_MS);

            assertTrue(b.isPrimary());
            TmEndpoint endpointB = b.endpoint().orElseThrow();
            assertTrue(endpointB.epoch() > endpointA.epoch(), endpointB + " after " + endpointA);
            assertTrue(lossA.lost.get(10, TimeUnit.SECONDS).length() > 0, "the old primary halted itself");
            assertFalse(a.isPrimary());

            long minAfter = firstAfter;
            for (int i = 0; i < 200; i++) {
                HaTestSupport.Decided d = HaTestSupport.runTransaction(client, 1_000 + i, table);
                assertTrue(d.decision().isCommitted(), d.decision().toString());
                minAfter = Math.min(minAfter, Math.min(d.startTs(), d.decision().commitTimestamp()));
            }
            assertTrue(maxBefore < minAfter, "every timestamp after the takeover (min " + minAfter
                    + ") must exceed every one before it (max " + maxBefore + ")");

            // The new primary knows nothing of the old one's conflicts: older transactions cannot commit.
            assertEquals(AbortReason.BELOW_LOW_WATER_MARK,
                    client.commit(openOnOldPrimary, new long[] {5}, new long[] {99}).abortReason());
            // The fence survived in ZooKeeper and the new primary loaded it.
            assertEquals(fence, new ZooKeeperFenceStore(zk.newClient(), HaConfig.from(settings).paths())
                    .loadAll().get(table));
        } finally {
            b.close();
            a.close();
        }
    }

    @Test
    @Timeout(60)
    void aFenceTakenBeforeAFailoverStillAbortsOlderWritersOfTheTable() throws Exception {
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), LEASE_MS);
        CuratorFramework zkA = zk.newClient();
        TmHaService a = startTm(zkA, settings, HaSeams.defaults());
        a.awaitPrimary(10, TimeUnit.SECONDS);
        TmHaService b = startTm(zk.newClient(), settings, HaSeams.defaults());
        try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
            long table = 5150;
            long writerBeforeFence = client.begin();
            long fence = client.fence(table);
            long writerAfterFence = client.begin();

            zkA.close();
            HaTestSupport.beginOnNewPrimary(client, b, 15_000);

            TransactionManagerCore newPrimary = b.transactionManager().orElseThrow();
            assertTrue(newPrimary.lowWaterMark() >= fence);
            // Both are older than the new epoch; neither may commit, the one before the fence in particular.
            CommitDecision before = client.commit(writerBeforeFence, new long[] {1}, new long[] {table});
            CommitDecision after = client.commit(writerAfterFence, new long[] {2}, new long[] {table});
            assertFalse(before.isCommitted(), before.toString());
            assertFalse(after.isCommitted(), after.toString());
            // A transaction of the new epoch writes the fenced table normally (its index is built by now).
            long fresh = client.begin();
            assertTrue(client.commit(fresh, new long[] {3}, new long[] {table}).isCommitted());
            // And a fence taken on the new primary is enforced and persisted like the old one.
            long older = client.begin();
            long newFence = client.fence(table);
            assertEquals(AbortReason.FENCE, client.commit(older, new long[] {4}, new long[] {table})
                    .abortReason());
            assertEquals(Map.of(table, newFence), new ZooKeeperFenceStore(zk.newClient(),
                    HaConfig.from(settings).paths()).loadAll());
        } finally {
            b.close();
            a.close();
        }
    }

    /**
     * A backup's warm-up term (TmWarmUp, a server and core of its own) never outlives close(): closed before the
     * warm-up began (its delay is interrupted) and while it likely runs (closed just after the delay).
     */
    @Test
    @Timeout(60)
    void closingABackupLeavesNoWarmUpTermRunning() throws Exception {
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), LEASE_MS);
        TmHaService a = startTm(zk.newClient(), settings, HaSeams.defaults());
        try {
            a.awaitPrimary(10, TimeUnit.SECONDS);
            for (long closeAfterMs : new long[] {0, TmHaService.WARM_UP_DELAY_MS + 20}) {
                TmHaService b = startTm(zk.newClient(), settings, HaSeams.defaults());
                Thread.sleep(closeAfterMs); // where close lands in the warm-up; the assertion holds for any
                b.close();
                assertFalse(b.warmUpThread().isAlive(), "warm-up still running after close (" + closeAfterMs
                        + " ms after start)");
                assertFalse(b.isPrimary());
            }
        } finally {
            a.close();
        }
    }

    @Test
    @Timeout(60)
    void aGracefulShutdownHandsOverWithoutWaitingForTheLease() throws Exception {
        long longLeaseMs = 10_000;
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), longLeaseMs);
        TmHaService a = startTm(zk.newClient(), settings, HaSeams.defaults());
        a.awaitPrimary(10, TimeUnit.SECONDS);
        TmHaService b = startTm(zk.newClient(), settings, HaSeams.defaults());
        try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
            long before = client.begin();
            long closedAt = System.nanoTime();
            a.close();
            long after = HaTestSupport.beginOnNewPrimary(client, b, 15_000);
            long handoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt);
            System.out.printf("HA graceful handover (primary closed -> first BEGIN on the new primary): %d ms with"
                    + " a %d ms lease%n", handoverMs, longLeaseMs);
            assertTrue(handoverMs < longLeaseMs / 2, "released lease, yet the handover took " + handoverMs + " ms");
            assertTrue(after > before);
            assertTrue(b.isPrimary());
        } finally {
            b.close();
            a.close();
        }
    }

    @Test
    @Timeout(60)
    void aBackupThatWinsLaterStartsAboveEveryEarlierPrimaryAcrossSeveralFailovers() throws Exception {
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), LEASE_MS);
        List<TmHaService> services = new ArrayList<>();
        CuratorFramework session = zk.newClient();
        TmHaService first = startTm(session, settings, HaSeams.defaults());
        services.add(first);
        first.awaitPrimary(10, TimeUnit.SECONDS);
        try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
            long maxSoFar = 0;
            TmHaService primary = first;
            for (int round = 0; round < 3; round++) {
                long firstOfTerm = HaTestSupport.beginOnNewPrimary(client, primary, 15_000);
                assertTrue(firstOfTerm > maxSoFar, "round " + round + ": " + firstOfTerm + " <= " + maxSoFar);
                for (int i = 0; i < 50; i++) {
                    maxSoFar = Math.max(maxSoFar, HaTestSupport.runTransaction(client, i, 1).decision()
                            .commitTimestamp());
                }
                CuratorFramework nextSession = zk.newClient();
                TmHaService next = startTm(nextSession, settings, HaSeams.defaults());
                services.add(next);
                session.close();
                session = nextSession;
                primary = next;
            }
        } finally {
            services.forEach(TmHaService::close);
        }
    }

    @Test
    @Timeout(30)
    void anUnreachableQuorumFailsTheStartNamingTheQuorumAndTheKey() throws Exception {
        String quorum;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            quorum = "127.0.0.1:" + probe.getLocalPort();
        }
        Map<String, String> settings = Map.of(HaConfig.ZK_QUORUM, quorum, HaConfig.ZK_CONNECT_TIMEOUT_MS, "1000");
        long start = System.nanoTime();
        TmException e = assertThrows(TmException.class, () -> TmServerMain.start(settings::get, System.out));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs < 5_000, "took " + tookMs + " ms");
        assertTrue(e.getMessage().contains("Cannot reach ZooKeeper at " + quorum)
                && e.getMessage().contains(HaConfig.ZK_QUORUM), e.getMessage());

        // With HBase's key, the message names that key.
        Map<String, String> hbase = Map.of(HaConfig.HBASE_QUORUM, "127.0.0.1",
                HaConfig.HBASE_CLIENT_PORT, quorum.substring(quorum.indexOf(':') + 1),
                HaConfig.ZK_CONNECT_TIMEOUT_MS, "1000");
        TmException viaHBase = assertThrows(TmException.class,
                () -> ZooKeeperClients.connect(HaConfig.from(hbase::get)));
        assertTrue(viaHBase.getMessage().contains(HaConfig.HBASE_QUORUM), viaHBase.getMessage());
    }
}
