package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.ZkTestCluster;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded TM's marker is held like a lease: an answer is withheld once the ZooKeeper session that owns the
 * marker is in doubt, the marker is re-established before the next answer, and a TM deployment that appeared
 * meanwhile ends the embedded TM's use for good.
 */
@Tag("slow")
class EmbeddedGuardTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();
    private static final LocatorFixture fixture = new LocatorFixture(zk);

    @AfterEach
    void stopTheEmbeddedTm() {
        EmbeddedTm.shutdown();
    }

    @Test
    @Timeout(30)
    void aLostSessionWithholdsAnswersUntilTheMarkerIsRegisteredAgain() throws Exception {
        Function<String, String> s = fixture.settings(ZkTestCluster.freshBasePath(), TmMode.AUTO);
        HaConfig ha = HaConfig.from(s);
        CuratorFramework client = ZooKeeperClients.connect(ha);
        try (EmbeddedGuard guard = EmbeddedGuard.register(client, ha, TmMode.AUTO)) {
            assertNotNull(guard);
            GuardedTransactionManager tm = new GuardedTransactionManager(TmConfig.from(s), guard);
            long before = tm.begin();
            String firstMarker = guard.marker();

            expireSession(client, guard);
            TmException withheld = assertThrows(TmException.class, () -> guard.confirm("BEGIN"));
            assertTrue(withheld.getMessage().contains("is withheld") && withheld.getMessage().contains(firstMarker),
                    withheld.getMessage());

            assertTrue(tm.begin() > before, "the next call registers a marker in the new session first");
            assertTrue(guard.isHeld());
            assertNotEquals(firstMarker, guard.marker(), "a fresh marker: the old one dies with the old session");
            assertTrue(new TmDeployment(zk.newClient(), ha).embeddedTms().size() >= 1);
        }
    }

    @Test
    @Timeout(30)
    void aDeploymentThatAppearedWhileTheSessionWasLostEndsTheEmbeddedTmsUse() throws Exception {
        Function<String, String> s = fixture.settings(ZkTestCluster.freshBasePath(), TmMode.AUTO);
        HaConfig ha = HaConfig.from(s);
        CuratorFramework observer = zk.newClient();
        CuratorFramework client = ZooKeeperClients.connect(ha);
        try (EmbeddedGuard guard = EmbeddedGuard.register(client, ha, TmMode.AUTO)) {
            GuardedTransactionManager tm = new GuardedTransactionManager(TmConfig.from(s), guard);
            tm.begin();

            expireSession(client, guard);
            new TmDeployment(observer, ha).declare(); // a TM server started while this JVM was cut off

            for (int i = 0; i < 2; i++) {
                TmException e = assertThrows(TmException.class, tm::begin);
                assertTrue(e.getMessage().contains("has been deployed since"), e.getMessage());
            }
            String marker = guard.marker().substring(zk.quorum().length());
            assertNull(observer.checkExists().forPath(marker), "the marker it wrote before looking is withdrawn");
        }
    }

    @Test
    @Timeout(30)
    void closingStopsAnsweringBeforeTheMarkerGoes() throws Exception {
        Function<String, String> s = fixture.settings(ZkTestCluster.freshBasePath(), TmMode.AUTO);
        HaConfig ha = HaConfig.from(s);
        EmbeddedGuard guard = EmbeddedGuard.register(ZooKeeperClients.connect(ha), ha, TmMode.AUTO);
        GuardedTransactionManager tm = new GuardedTransactionManager(TmConfig.from(s), guard);
        tm.begin();
        guard.close();
        assertThrows(TmException.class, tm::begin);
        assertEquals(0, new TmDeployment(zk.newClient(), ha).embeddedTms().size());
    }

    /** Expires the guard's ZooKeeper session as the ensemble would, and waits until the guard has noticed. */
    private static void expireSession(CuratorFramework client, EmbeddedGuard guard) throws Exception {
        KillSession.kill(client.getZookeeperClient().getZooKeeper());
        awaitCondition(() -> !guard.isHeld(), "the guard notices the lost session");
    }

    private static void awaitCondition(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }
}
