package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real ZooKeeper (Curator's TestingServer) plus the clients and settings a test needs; closes them all. A JUnit 5
 * extension: a test class registers one in a static field,
 * {@code @RegisterExtension static final ZkTestCluster zk = new ZkTestCluster();}, and it runs before the class's
 * first test and stops after its last. A test that needs a server of its own (to stop or restart it) uses
 * {@code try (ZkTestCluster own = ZkTestCluster.started())}.
 */
public final class ZkTestCluster implements AutoCloseable, BeforeAllCallback, AfterAllCallback {
    private static final AtomicInteger PATHS = new AtomicInteger();

    private final List<CuratorFramework> clients = new ArrayList<>();
    private volatile TestingServer server;

    /** Not started yet: register it as an extension, or call {@link #started()} instead. */
    public ZkTestCluster() {
    }

    /** A running ZooKeeper, for a test that closes it itself. */
    public static ZkTestCluster started() throws Exception {
        ZkTestCluster zk = new ZkTestCluster();
        zk.start();
        return zk;
    }

    private synchronized void start() throws Exception {
        if (server != null) {
            throw new IllegalStateException("test ZooKeeper already started");
        }
        // The tests use 1 s leases (renewed with 200 ms to spare); a transaction-log fsync on a busy build machine
        // can take longer than that. Durability of the test ZooKeeper is not what these tests check.
        System.setProperty("zookeeper.forceSync", "no");
        server = new TestingServer(true);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        close();
    }

    public TestingServer server() {
        TestingServer s = server;
        if (s == null) {
            throw new IllegalStateException("test ZooKeeper not started: register it with @RegisterExtension on a"
                    + " static field, or use ZkTestCluster.started()");
        }
        return s;
    }

    public String quorum() {
        return server().getConnectString();
    }

    /** A base path no other test uses, so tests share one server without seeing each other's nodes. */
    public static String freshBasePath() {
        return "/phoenix-txn-test-" + PATHS.incrementAndGet();
    }

    /** A connected client, closed with the cluster unless the test closes it first. */
    public CuratorFramework newClient() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server().getConnectString())
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100))
                .build();
        client.start();
        if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test ZooKeeper did not accept a connection");
        }
        synchronized (clients) {
            clients.add(client);
        }
        return client;
    }

    /** Settings for a TM or client against this server under {@code basePath}, plus extra key/values. */
    public Function<String, String> settings(String basePath, long leaseMs, String... extra) {
        Map<String, String> map = new HashMap<>();
        map.put(HaConfig.ZK_QUORUM, server().getConnectString());
        map.put(HaConfig.ZK_PATH, basePath);
        map.put(HaConfig.LEASE_MS, Long.toString(leaseMs));
        map.put(HaConfig.ZK_CONNECT_TIMEOUT_MS, "5000");
        map.put(HaConfig.DISCOVERY_TIMEOUT_MS, "15000");
        map.put(HaConfig.ADVERTISED_HOST, "127.0.0.1");
        map.put("phoenix.txn.tm.server.host", "127.0.0.1");
        map.put("phoenix.txn.tm.server.port", "0");
        for (int i = 0; i + 1 < extra.length; i += 2) {
            map.put(extra[i], extra[i + 1]);
        }
        return map::get;
    }

    /** Closes the clients, then the server; a second call does nothing. */
    @Override
    public synchronized void close() throws Exception {
        synchronized (clients) {
            for (CuratorFramework client : clients) {
                client.close();
            }
            clients.clear();
        }
        TestingServer s = server;
        server = null;
        if (s != null) {
            s.close();
        }
    }
}
