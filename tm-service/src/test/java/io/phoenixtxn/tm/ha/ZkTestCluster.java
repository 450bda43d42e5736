package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** A real ZooKeeper (Curator's TestingServer) plus the clients and settings a test needs; closes them all. */
public final class ZkTestCluster implements AutoCloseable {
    private static final AtomicInteger PATHS = new AtomicInteger();

    private final TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();

    public ZkTestCluster() throws Exception {
        // The tests use 1 s leases (renewed with 200 ms to spare); a transaction-log fsync on a busy build machine
        // can take longer than that. Durability of the test ZooKeeper is not what these tests check.
        System.setProperty("zookeeper.forceSync", "no");
        server = new TestingServer(true);
    }

    public TestingServer server() {
        return server;
    }

    public String quorum() {
        return server.getConnectString();
    }

    /** A base path no other test uses, so tests share one server without seeing each other's nodes. */
    public static String freshBasePath() {
        return "/phoenix-txn-test-" + PATHS.incrementAndGet();
    }

    /** A connected client, closed with the cluster unless the test closes it first. */
    public CuratorFramework newClient() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
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
        map.put(HaConfig.ZK_QUORUM, server.getConnectString());
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

    @Override
    public void close() throws Exception {
        synchronized (clients) {
            for (CuratorFramework client : clients) {
                client.close();
            }
        }
        server.close();
    }
}
