package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.net.RemoteTransactionManager;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper ACLs on the TM's nodes ({@link ZkAccess}) against a real ZooKeeper (Curator's TestingServer): a TM
 * server configured with a digest identity and {@code world:anyone:r} creates every node (base path, lease,
 * timestamp, primary advertisement) with that ACL; a session without the credentials can still discover and use the
 * primary, but cannot move the lease or the timestamp reservation; without the keys nodes stay open as before.
 */
@Tag("slow")
@Timeout(60)
class ZkAccessTest {
    private static final String TM_SECRET = "tm:tm-secret";
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    @Test
    void tmNodesCarryTheConfiguredAclAndRefuseOthersWrites() throws Exception {
        String digest = DigestAuthenticationProvider.generateDigest(TM_SECRET);
        String base = ZkTestCluster.freshBasePath();
        Function<String, String> settings = zk.settings(base, HaTestSupport.LEASE_MS,
                ZkAccess.ACL, "digest:" + digest + ":cdrwa,world:anyone:r",
                ZkAccess.AUTH, "digest:" + TM_SECRET);
        HaConfig ha = HaConfig.from(settings);
        List<ACL> expected = List.of(
                new ACL(ZooDefs.Perms.ALL, new Id("digest", digest)),
                new ACL(ZooDefs.Perms.READ, new Id("world", "anyone")));
        try (CuratorFramework tmZk = ZooKeeperClients.connect(ha);
             TmHaService tm = TmHaService.start(tmZk, HaTestSupport.tmConfig(settings),
                     HaTestSupport.serverConfig(settings), ha)) {
            tm.awaitPrimary(30, TimeUnit.SECONDS);
            CuratorFramework anonymous = zk.newClient();
            ZkPaths paths = ha.paths();
            for (String path : List.of(paths.base(), paths.lease(), paths.timestamp(), paths.primary())) {
                // Read through the TM's session: ZooKeeper hides digest ids from sessions without admin rights.
                assertEquals(expected, tmZk.getACL().forPath(path), path);
            }
            assertThrows(KeeperException.NoAuthException.class,
                    () -> anonymous.setData().forPath(paths.lease(), new byte[] {1}));
            assertThrows(KeeperException.NoAuthException.class,
                    () -> anonymous.setData().forPath(paths.timestamp(), new byte[] {1}));
            assertThrows(KeeperException.NoAuthException.class,
                    () -> anonymous.create().forPath(paths.base() + "/intruder"));

            // A client needs no credentials: it reads the advertisement and talks to the primary.
            Function<String, String> clientSettings = zk.settings(base, HaTestSupport.LEASE_MS);
            try (RemoteTransactionManager client = HaTestSupport.client(clientSettings)) {
                assertTrue(client.begin() > 0);
            }
        }
    }

    @Test
    void withoutTheKeysNodesStayOpen() throws Exception {
        Function<String, String> settings = zk.settings(ZkTestCluster.freshBasePath(), HaTestSupport.LEASE_MS);
        HaConfig ha = HaConfig.from(settings);
        assertTrue(ha.access().isOpen());
        try (CuratorFramework tmZk = ZooKeeperClients.connect(ha);
             TmHaService tm = TmHaService.start(tmZk, HaTestSupport.tmConfig(settings),
                     HaTestSupport.serverConfig(settings), ha)) {
            tm.awaitPrimary(30, TimeUnit.SECONDS);
            assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, zk.newClient().getACL().forPath(ha.paths().lease()));
        }
    }

    @Test
    void malformedSettingsNameTheKey() {
        assertMessage(Map.of(ZkAccess.ACL, "sasl:tm"), ZkAccess.ACL);
        assertMessage(Map.of(ZkAccess.ACL, "kerberos:tm:cdrwa"), "unknown scheme");
        assertMessage(Map.of(ZkAccess.ACL, "sasl:tm:rwx"), "cdrwa");
        assertMessage(Map.of(ZkAccess.ACL, "world:anyone:r"), "admin permission");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ZkAccess.from(Map.of(ZkAccess.AUTH, "digestonly")::get));
        assertTrue(e.getMessage().contains(ZkAccess.AUTH), e.getMessage());
        assertTrue(!ZkAccess.from(Map.of(ZkAccess.AUTH, "digest:tm:pw")::get).toString().contains("pw"),
                "credentials never printed");
        assertEquals(List.of(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "tm@EXAMPLE.COM"))),
                ZkAccess.from(Map.of(ZkAccess.ACL, " sasl:tm@EXAMPLE.COM:cdrwa ")::get).acl());
    }

    private static void assertMessage(Map<String, String> settings, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZkAccess.from(settings::get));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
