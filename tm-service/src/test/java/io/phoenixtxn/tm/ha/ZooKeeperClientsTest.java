package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ZooKeeper clients of TM servers: how fast they come back after ZooKeeper does (issue 14). */
@Tag("slow")
class ZooKeeperClientsTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    @Test
    void aTmGivesUpAReconnectionAfterThreeLeasePeriodsBoundedByTheSessionTimeout() {
        assertEquals(3_000, ZooKeeperClients.tmReconnectGiveUpMs(config(1_000, 30_000)));
        assertEquals(2_000, ZooKeeperClients.tmReconnectGiveUpMs(config(100, 10_000)), "at least 2 s");
        assertEquals(30_000, ZooKeeperClients.tmReconnectGiveUpMs(config(10_000, 30_000)), "the defaults");
    }

    private static HaConfig config(long leaseMs, long sessionMs) {
        return HaConfig.from(zk.settings("/unused", leaseMs, HaConfig.ZK_SESSION_TIMEOUT_MS, Long.toString(sessionMs)));
    }

    /**
     * The chaos run's slow ZooKeeper restart: the restarting server accepted the TMs' reconnections before it served
     * and then neither answered nor closed them. A ZooKeeper client waits for its handshake up to the session
     * timeout divided by the number of servers (30 s here), so for 33 s no TM could take the lease. A TM's client
     * gives up a connection attempt after three lease periods and opens a new session, as often as it takes.
     */
    @Test
    @Timeout(60)
    void aTmClientStuckInAReconnectionOpensANewSessionAfterAFewLeasePeriods() throws Exception {
        InetSocketAddress server = new InetSocketAddress("127.0.0.1", zk.server().getPort());
        try (CuttableTcpProxy proxy = new CuttableTcpProxy(server)) {
            HaConfig config = HaConfig.from(zk.settings(ZkTestCluster.freshBasePath(), 1_000,
                    HaConfig.ZK_QUORUM, proxy.address(), HaConfig.ZK_SESSION_TIMEOUT_MS, "30000"));
            try (CuratorFramework tmClient = ZooKeeperClients.connectForTm(config)) {
                BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();
                tmClient.getConnectionStateListenable().addListener((c, state) -> states.add(state));

                proxy.swallow();
                awaitState(states, ConnectionState.SUSPENDED, 20_000);
                // The first reconnection is swallowed; so is the one after the first give-up (the server was still
                // starting): the client must give up again, not wait for a handshake for the session timeout.
                assertTrue(proxy.awaitSwallowed(2, 20_000), "the client never gave up its first reconnection");
                proxy.heal(); // ZooKeeper serves again; the swallowed handshakes stay unanswered

                long healed = System.nanoTime();
                awaitState(states, ConnectionState.RECONNECTED, 12_000);
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed);
                assertNotNull(tmClient.checkExists().forPath("/"), "the new session serves");
                assertTrue(tookMs < 12_000, "reconnected after " + tookMs + " ms");
            }
        }
    }

    private static void awaitState(BlockingQueue<ConnectionState> states, ConnectionState wanted, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            ConnectionState state = states.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertTrue(state != null, "the client did not reach " + wanted + " within " + timeoutMs + " ms");
            if (state == wanted) {
                return;
            }
        }
    }
}
