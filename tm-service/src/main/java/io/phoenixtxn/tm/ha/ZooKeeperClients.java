package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens Curator clients for the TM and its clients, and turns ZooKeeper failures into {@link TmException}s that
 * name the quorum and the setting to fix. Connecting is bounded by {@link HaConfig#ZK_CONNECT_TIMEOUT_MS}: an
 * unreachable quorum must fail the start, not hang it.
 */
public final class ZooKeeperClients {
    private ZooKeeperClients() {
    }

    /**
     * A TM server's client: as {@link #connect(HaConfig)}, but a connection attempt that has not succeeded within
     * {@link #tmReconnectGiveUpMs three lease periods} is given up for a new session ({@link ReconnectWatchdog}).
     * A ZooKeeper client waits for a handshake up to the session timeout divided by the number of servers, and a
     * restarting server can accept connections it then neither answers nor closes (issue 14): without this, no TM
     * could take the lease for that long. Safe for a TM: its lease, reservations and fences are not ephemeral, it
     * stops deciding after two lease periods without ZooKeeper anyway, and a successor (or itself, primary again)
     * replaces the advertisement an old session leaves.
     */
    public static CuratorFramework connectForTm(HaConfig config) throws TmException {
        CuratorFramework client = connect(config);
        ReconnectWatchdog.watch(client, tmReconnectGiveUpMs(config));
        return client;
    }

    /** Three lease periods, at least 2 s (a plain reconnection takes up to about 1 s), at most the session timeout. */
    static long tmReconnectGiveUpMs(HaConfig config) {
        return Math.min(config.sessionTimeoutMs(), Math.max(3 * config.leaseMs(), 2_000));
    }

    /** A started client that is connected; fails within the connect timeout if the quorum cannot be reached. */
    public static CuratorFramework connect(HaConfig config) throws TmException {
        if (!config.isEnabled()) {
            throw new TmException("No ZooKeeper quorum is configured; set " + HaConfig.ZK_QUORUM + " (or "
                    + HaConfig.HBASE_QUORUM + ") to run the transaction manager with high availability");
        }
        int connectTimeout = (int) Math.min(Integer.MAX_VALUE, config.connectTimeoutMs());
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(config.quorum())
                .sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, config.sessionTimeoutMs()))
                .connectionTimeoutMs(connectTimeout)
                // Bounded: a TM call that needs ZooKeeper must fail in bounded time, never block forever.
                .retryPolicy(new BoundedExponentialBackoffRetry(100, 1_000, 3));
        config.access().applyTo(builder);
        CuratorFramework client = builder.build();
        client.start();
        try {
            awaitConnected(client, config);
        } catch (TmException e) {
            client.close();
            throw e;
        }
        return client;
    }

    /** Waits for the client's first connection, at most the configured connect timeout. */
    public static void awaitConnected(CuratorFramework client, HaConfig config) throws TmException {
        boolean connected;
        try {
            connected = client.blockUntilConnected((int) Math.min(Integer.MAX_VALUE, config.connectTimeoutMs()),
                    TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TmException("Interrupted while connecting to ZooKeeper at " + quorum(client), e);
        }
        if (!connected) {
            throw new TmException("Cannot reach ZooKeeper at " + quorum(client) + " within "
                    + config.connectTimeoutMs() + " ms; check that ZooKeeper runs there, or fix "
                    + config.quorumKey() + (HaConfig.ZK_QUORUM.equals(config.quorumKey()) ? "" : " (or set "
                    + HaConfig.ZK_QUORUM + ")") + "; " + HaConfig.ZK_CONNECT_TIMEOUT_MS + " sets how long to wait");
        }
    }

    /**
     * Brings the client's ZooKeeper server up to date with the leader, so that the reads that follow see every write
     * the ensemble committed before this call (ZooKeeper reads are otherwise only sequentially consistent: a
     * follower may lag). Bounded by the connect timeout.
     */
    public static void sync(CuratorFramework client, HaConfig config) throws TmException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger result = new AtomicInteger();
        try {
            // Curator runs sync() only in the background; the callback says how it went.
            client.sync().inBackground((c, event) -> {
                result.set(event.getResultCode());
                done.countDown();
            }).forPath("/");
            if (!done.await(config.connectTimeoutMs(), TimeUnit.MILLISECONDS)) {
                throw new TmException("ZooKeeper at " + quorum(client) + " did not answer a sync within "
                        + config.connectTimeoutMs() + " ms (" + HaConfig.ZK_CONNECT_TIMEOUT_MS + ")");
            }
        } catch (Exception e) {
            throw failure(client, "sync", "/", e);
        }
        if (result.get() != 0) {
            throw new TmException("ZooKeeper at " + quorum(client) + " failed to sync: "
                    + KeeperException.Code.get(result.get()));
        }
    }

    public static String quorum(CuratorFramework client) {
        return client.getZookeeperClient().getCurrentConnectionString();
    }

    /** A ZooKeeper operation failed: wrap it with what was attempted, where, and the quorum. */
    public static TmException failure(CuratorFramework client, String action, String path, Exception cause) {
        if (cause instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (cause instanceof TmException tm) {
            return tm;
        }
        String hint = cause instanceof KeeperException.NoAuthException ? "; the node's ACL refuses this session:"
                + " give this process the credentials " + ZkAccess.ACL + " names (" + ZkAccess.AUTH + ", or a JAAS"
                + " Client section for sasl)" : "";
        return new TmException("ZooKeeper at " + quorum(client) + " failed to " + action + " " + path + ": "
                + cause + hint, cause);
    }
}
