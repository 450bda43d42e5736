package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.net.TmEndpoint;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZooKeeperEndpointResolverTest {
    private static ZkTestCluster zk;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new ZkTestCluster();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    @Timeout(10)
    void endpointsRoundTripIncludingIpv6() {
        TmEndpoint v4 = new TmEndpoint("tm1.example.com", 24680, 1_700_000_000_000_000_000L);
        assertEquals(Optional.of(v4), EndpointCodec.decode(EndpointCodec.encode(v4)));
        TmEndpoint v6 = new TmEndpoint("::1", 1, 0);
        assertEquals("[::1]:1#0", new String(EndpointCodec.encode(v6), StandardCharsets.UTF_8));
        assertEquals(Optional.of(v6), EndpointCodec.decode(EndpointCodec.encode(v6)));
        assertEquals(Optional.empty(), EndpointCodec.decode("garbage".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), EndpointCodec.decode("h:99999#1".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), EndpointCodec.decode(null));
    }

    @Test
    @Timeout(30)
    void noPrimaryIsAClearErrorWithinTheDiscoveryTimeout() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        HaConfig config = HaConfig.from(zk.settings(base, 1000, HaConfig.DISCOVERY_TIMEOUT_MS, "300"));
        try (ZooKeeperEndpointResolver resolver = ZooKeeperEndpointResolver.connect(config)) {
            long start = System.nanoTime();
            TmException e = assertThrows(TmException.class, resolver::current);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMs >= 250 && tookMs < 5_000, "waited " + tookMs + " ms");
            assertTrue(e.getMessage().contains("No transaction manager is registered in ZooKeeper at "
                    + zk.quorum() + base + "/tm/primary"), e.getMessage());
            assertTrue(e.getMessage().contains("bin/tm-server") && e.getMessage().contains(
                    "phoenix.txn.tm.mode=embedded"), e.getMessage());
        }
    }

    @Test
    @Timeout(30)
    void followsTheAdvertisementAndNotifiesOnEveryChange() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        HaConfig config = HaConfig.from(zk.settings(base, 1000));
        CuratorFramework tmSide = zk.newClient();
        String path = config.paths().primary();
        try (ZooKeeperEndpointResolver resolver = ZooKeeperEndpointResolver.watch(zk.newClient(), config)) {
            Semaphore changes = new Semaphore(0);
            resolver.onChange(changes::release);

            TmEndpoint first = new TmEndpoint("127.0.0.1", 1111, 10);
            tmSide.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                    .forPath(path, EndpointCodec.encode(first));
            assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS));
            assertEquals(first, resolver.current());

            tmSide.delete().forPath(path);
            assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS), "the removal is a change too");
            TmEndpoint second = new TmEndpoint("127.0.0.1", 2222, 20);
            Thread publisher = new Thread(() -> {
                try {
                    tmSide.create().withMode(CreateMode.EPHEMERAL).forPath(path, EndpointCodec.encode(second));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            publisher.start();
            // current() waits for the next primary instead of failing during a failover.
            assertEquals(second, resolver.current());
            publisher.join();
        }
    }

    @Test
    @Timeout(30)
    void anUnreachableQuorumFailsFastNamingTheQuorumAndTheKey() throws Exception {
        String quorum;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            quorum = "127.0.0.1:" + probe.getLocalPort();
        }
        HaConfig config = HaConfig.from(java.util.Map.of(
                HaConfig.ZK_QUORUM, quorum,
                HaConfig.ZK_CONNECT_TIMEOUT_MS, "1000")::get);
        long start = System.nanoTime();
        TmException e = assertThrows(TmException.class, () -> ZooKeeperEndpointResolver.connect(config));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs < 5_000, "took " + tookMs + " ms");
        assertTrue(e.getMessage().contains(quorum) && e.getMessage().contains(HaConfig.ZK_QUORUM),
                e.getMessage());
    }
}
