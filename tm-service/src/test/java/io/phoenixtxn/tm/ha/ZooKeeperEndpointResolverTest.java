package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.net.TmEndpoint;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("slow")
class ZooKeeperEndpointResolverTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

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

    /**
     * Issue 14 (chaos run, ZooKeeper restart): the primary's advertisement is replaced (delete, then create: the new
     * node has version 0 like the old one) while this client is disconnected. On reconnect the client must read the
     * node again and see the new primary; a cache that compares znode versions keeps the deposed address.
     */
    @Test
    @Timeout(60)
    void anAdvertisementReplacedWhileDisconnectedIsSeenAfterTheSameSessionReconnects() throws Exception {
        assertFollowsAReplacementMadeWhileCut(false);
    }

    /** As above, with the client's session expired during the cut: the new session must read the node again. */
    @Test
    @Timeout(60)
    void anAdvertisementReplacedWhileDisconnectedIsSeenByANewSession() throws Exception {
        assertFollowsAReplacementMadeWhileCut(true);
    }

    private static void assertFollowsAReplacementMadeWhileCut(boolean expireSession) throws Exception {
        String base = ZkTestCluster.freshBasePath();
        HaConfig config = HaConfig.from(zk.settings(base, 1000));
        String path = config.paths().primary();
        CuratorFramework tmSide = zk.newClient();
        TmEndpoint deposed = new TmEndpoint("127.0.0.1", 1111, 10);
        tmSide.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                .forPath(path, EndpointCodec.encode(deposed));
        InetSocketAddress server = new InetSocketAddress("127.0.0.1", zk.server().getPort());
        try (CuttableTcpProxy proxy = new CuttableTcpProxy(server);
             CuratorFramework clientSide = CuratorFrameworkFactory.builder().connectString(proxy.address())
                     .sessionTimeoutMs(10_000).connectionTimeoutMs(5_000).retryPolicy(new RetryOneTime(100)).build()) {
            BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();
            clientSide.getConnectionStateListenable().addListener((c, state) -> states.add(state));
            clientSide.start();
            awaitState(states, ConnectionState.CONNECTED);
            try (ZooKeeperEndpointResolver resolver = ZooKeeperEndpointResolver.watch(clientSide, config)) {
                Semaphore changes = new Semaphore(0);
                resolver.onChange(changes::release);
                assertEquals(deposed, resolver.current());

                proxy.cut();
                awaitState(states, ConnectionState.SUSPENDED);
                // The failover, as PrimaryAdvertiser does it: the stale node is deleted and the new primary creates
                // its own (version 0 again), all while this client cannot hear about it.
                TmEndpoint successor = new TmEndpoint("127.0.0.1", 2222, 20);
                tmSide.delete().forPath(path);
                tmSide.create().withMode(CreateMode.EPHEMERAL).forPath(path, EndpointCodec.encode(successor));
                if (expireSession) {
                    clientSide.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
                    awaitState(states, ConnectionState.LOST);
                }
                proxy.heal();
                awaitState(states, ConnectionState.RECONNECTED);

                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (!successor.equals(resolver.current())) {
                    long left = deadline - System.nanoTime();
                    assertTrue(left > 0 && changes.tryAcquire(left, TimeUnit.NANOSECONDS),
                            "after reconnecting, the client still names the deposed primary " + resolver.current()
                                    + " instead of " + successor);
                }
            }
        }
    }

    private static void awaitState(BlockingQueue<ConnectionState> states, ConnectionState wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            ConnectionState state = states.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertTrue(state != null, "the client never reached " + wanted);
            if (state == wanted) {
                return;
            }
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
