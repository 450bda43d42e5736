package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZkTestCluster;
import io.phoenixtxn.tm.ha.ZooKeeperTimestampStorage;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one-TM-per-cluster policy of {@link TmLocator} against a real ZooKeeper: what each mode does on a cluster that
 * never ran a TM server, on one that did (with and without a primary advertised), and without ZooKeeper; and the
 * TM server's side of the rule (it does not become primary next to an embedded TM).
 */
@Tag("slow")
class TmLocatorTest {
    private static final long LEASE_MS = LocatorFixture.LEASE_MS;
    private static final long DISCOVERY_MS = LocatorFixture.DISCOVERY_MS;
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();
    private static final LocatorFixture fixture = new LocatorFixture(zk);

    @AfterEach
    void stopTheEmbeddedTm() {
        EmbeddedTm.shutdown();
    }

    @Test
    @Timeout(30)
    void autoOnADeployedClusterWithoutAPrimaryWaitsThenFailsAndStartsNoTm() throws Exception {
        String base = fixture.deployedPath();
        long start = System.nanoTime();
        TmException e = assertThrows(TmException.class, () -> TmLocator.locate(fixture.settings(base, TmMode.AUTO)));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMs >= DISCOVERY_MS - 100, "waited for a primary for the discovery timeout: " + waitedMs);
        String m = e.getMessage();
        assertTrue(m.contains(zk.quorum() + base + "/tm/primary"), "names quorum and path: " + m);
        assertTrue(m.contains("runs TM servers") && m.contains("bin/tm-server"), "says why and the fix: " + m);
        assertFalse(m.contains("mode=embedded"), "never advises an embedded TM on a deployed cluster: " + m);
        assertNull(EmbeddedTm.existing(), "no TM was started in this JVM");
    }

    @Test
    @Timeout(30)
    void autoWithZooKeeperUnreachableFailsClearlyAndStartsNoTm() throws Exception {
        String dead = "127.0.0.1:" + freePort();
        Function<String, String> s = fixture.settings("/unreachable", TmMode.AUTO, HaConfig.ZK_QUORUM, dead,
                HaConfig.ZK_CONNECT_TIMEOUT_MS, "500");
        TmException e = assertThrows(TmException.class, () -> TmLocator.locate(s));
        String m = e.getMessage();
        assertTrue(m.contains(dead), "names the quorum: " + m);
        assertTrue(m.contains("starts no TM of its own") && m.contains(HaConfig.ZK_QUORUM), "why, and the fix: " + m);
        assertNull(EmbeddedTm.existing(), "no TM was started in this JVM");
    }

    @Test
    @Timeout(60)
    void autoWithAnAdvertisedPrimaryUsesIt() throws Exception {
        Function<String, String> s = fixture.settings(ZkTestCluster.freshBasePath(), TmMode.AUTO);
        try (TmHaService server = fixture.startTmServer(s)) {
            server.awaitPrimary(20, TimeUnit.SECONDS);
            try (TmHandle handle = TmLocator.locate(s)) {
                RemoteTransactionManager tm = assertInstanceOf(RemoteTransactionManager.class, handle.get());
                assertTrue(tm.begin() > server.transactionManager().orElseThrow().epochBase(), "served by the primary");
            }
        }
        assertNull(EmbeddedTm.existing(), "no TM was started in this JVM");
    }

    @Test
    @Timeout(30)
    void autoOnANeverDeployedClusterUsesTheEmbeddedTmUnderAMarker() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        TmDeployment deployment = new TmDeployment(zk.newClient(), HaConfig.from(fixture.settings(base, TmMode.AUTO)));
        try (TmHandle handle = TmLocator.locate(fixture.settings(base, TmMode.AUTO))) {
            long ts = handle.get().begin();
            assertNotNull(EmbeddedTm.inMemory(), "the embedded TM runs");
            assertTrue(ts > 0);
            List<String> markers = deployment.embeddedTms();
            assertEquals(1, markers.size(), markers.toString());
            assertTrue(markers.get(0).contains("pid " + ProcessHandle.current().pid()), markers.toString());
        }
        assertEquals(List.of(), deployment.embeddedTms(), "closing the client withdraws its marker");
    }

    @Test
    @Timeout(30)
    void embeddedOnADeployedClusterRefuses() throws Exception {
        String base = fixture.deployedPath();
        Function<String, String> s = fixture.settings(base, TmMode.EMBEDDED);
        TmException e = assertThrows(TmException.class, () -> TmLocator.locate(s));
        String m = e.getMessage();
        assertTrue(m.contains("refused") && m.contains(base + "/timestamp"), m);
        assertTrue(m.contains("phoenix.txn.tm.mode=auto"), "says what to use instead: " + m);
        assertNull(EmbeddedTm.existing(), "no TM was started in this JVM");
    }

    @Test
    @Timeout(30)
    void remoteOnANeverDeployedClusterStillAdvisesEmbedded() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        TmException e = assertThrows(TmException.class, () -> TmLocator.locate(fixture.settings(base, TmMode.REMOTE)));
        assertTrue(e.getMessage().contains("phoenix.txn.tm.mode=embedded") && e.getMessage().contains("bin/tm-server"),
                e.getMessage());
        assertNull(EmbeddedTm.existing());
    }

    /**
     * Issue 10, defect 2, as reproduced: a cluster TM reserved timestamps; in the gap before the next primary a
     * client in auto mode started an embedded TM whose first timestamp was below that reservation. It must refuse,
     * and find the next primary, whose timestamps are above the reservation.
     */
    @Test
    @Timeout(90)
    void autoDuringTheGapBetweenPrimariesRefusesInsteadOfStartingATmBelowTheReservation() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        Function<String, String> s = fixture.settings(base, TmMode.AUTO);
        TmHaService first = fixture.startTmServer(s);
        first.awaitPrimary(20, TimeUnit.SECONDS);
        try (TmHandle handle = TmLocator.locate(s)) {
            assertInstanceOf(RemoteTransactionManager.class, handle.get()).begin();
        }
        first.close(); // graceful: advertisement withdrawn, lease released; the gap begins
        CuratorFramework observer = zk.newClient();
        long reserved = new ZooKeeperTimestampStorage(observer, HaConfig.from(s).paths()).getMaxTimestamp();

        TmException e = assertThrows(TmException.class, () -> TmLocator.locate(s), () -> "auto started "
                + EmbeddedTm.existing() + " during the gap; the cluster's TM had reserved up to " + reserved);
        assertTrue(e.getMessage().contains("runs TM servers"), e.getMessage());
        assertNull(EmbeddedTm.existing(), "no TM was started in this JVM");

        try (TmHaService second = fixture.startTmServer(s)) {
            second.awaitPrimary(20, TimeUnit.SECONDS);
            try (TmHandle handle = TmLocator.locate(s)) {
                long ts = assertInstanceOf(RemoteTransactionManager.class, handle.get()).begin();
                assertTrue(ts > reserved, "the next primary starts above the reservation: " + ts + " vs " + reserved);
            }
        }
    }

    @Test
    @Timeout(60)
    void aTmServerDoesNotBecomePrimaryWhileAnEmbeddedTmIsRegisteredAndDoesOnceItIsGone() throws Exception {
        Function<String, String> s = fixture.settings(ZkTestCluster.freshBasePath(), TmMode.AUTO);
        TmHandle embedded = TmLocator.locate(s);
        long embeddedTs = embedded.get().begin();
        try (TmHaService server = fixture.startTmServer(s)) {
            // A bounded negative check: several lease periods without primacy while the marker exists.
            assertThrows(TimeoutException.class, () -> server.awaitPrimary(4 * LEASE_MS, TimeUnit.MILLISECONDS));
            assertTrue(embedded.get().begin() > embeddedTs, "the embedded TM still serves its JVM");
            TmException late = assertThrows(TmException.class, () -> TmLocator.locate(s),
                    "a new client finds the deployment and waits for its primary, which is not there yet");
            assertTrue(late.getMessage().contains("runs TM servers"), late.getMessage());

            embedded.close();
            server.awaitPrimary(20, TimeUnit.SECONDS);
            try (TmHandle handle = TmLocator.locate(s)) {
                assertInstanceOf(RemoteTransactionManager.class, handle.get()).begin();
            }
        }
    }

    @Test
    @Timeout(30)
    void aMarkerWrittenAfterTheDeploymentIsWithdrawnAndNothingIsLeftBehind() throws Exception {
        // The client's second look: its first one (no deployment) raced a TM server's declaration.
        String base = fixture.deployedPath();
        HaConfig ha = HaConfig.from(fixture.settings(base, TmMode.AUTO));
        CuratorFramework client = zk.newClient();
        assertNull(EmbeddedGuard.register(client, ha, TmMode.AUTO), "the guard sees the deployment");
        assertEquals(List.of(), new TmDeployment(zk.newClient(), ha).embeddedTms(), "its marker is withdrawn");
    }

    @Test
    @Timeout(30)
    void aWrongModeIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TmLocator.locate(fixture.settings("/x", TmMode.AUTO, TmMode.KEY, "cluster")));
        assertTrue(e.getMessage().contains("phoenix.txn.tm.mode='cluster' is not one of auto, embedded, remote"),
                e.getMessage());
    }

    @Test
    @Timeout(30)
    void withoutAQuorumAutoAndEmbeddedRunInProcess() throws Exception {
        Function<String, String> s = key -> TmConfig.CONFLICT_ENTRIES.equals(key) ? "16384" : null;
        try (TmHandle handle = TmLocator.locate(s)) {
            handle.get().begin();
            assertNotNull(EmbeddedTm.inMemory());
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
