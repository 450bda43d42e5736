package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmEndpointResolver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Finds the primary TM through ZooKeeper: watches the primary's advertisement ({@code <path>/tm/primary}, see
 * {@link PrimaryAdvertiser}) with a Curator cache and tells the client when it changes, so a failover needs no user
 * code. While no primary is advertised (during a failover) {@link #current()} waits for one, at most
 * {@value HaConfig#DISCOVERY_TIMEOUT_MS}, then fails saying how to get one: on a cluster that has run TM servers
 * ({@link TmDeployment}) that is a primary, never an embedded TM.
 */
public final class ZooKeeperEndpointResolver implements TmEndpointResolver {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEndpointResolver.class);

    private final CuratorFramework zk;
    private final boolean ownsClient;
    private final String path;
    private final String deploymentPath;
    private final long waitMs;
    private final CuratorCache cache;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final Object monitor = new Object();
    private TmEndpoint endpoint;

    private ZooKeeperEndpointResolver(CuratorFramework zk, boolean ownsClient, HaConfig config) {
        this.zk = zk;
        this.ownsClient = ownsClient;
        this.path = config.paths().primary();
        this.deploymentPath = config.paths().timestamp();
        this.waitMs = config.discoveryTimeoutMs();
        this.cache = CuratorCache.build(zk, path, CuratorCache.Options.SINGLE_NODE_CACHE);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forAll((type, oldData, data) -> update(type == CuratorCacheListener.Type.NODE_DELETED ? null : data))
                .build());
    }

    /** Connects to the configured quorum (bounded, with a clear error) and watches the advertisement. */
    public static ZooKeeperEndpointResolver connect(HaConfig config) throws TmException {
        CuratorFramework client = ZooKeeperClients.connect(config);
        try {
            ZooKeeperEndpointResolver resolver = new ZooKeeperEndpointResolver(client, true, config);
            resolver.cache.start();
            return resolver;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Watches the advertisement through a client the caller owns and keeps open while this resolver lives. */
    public static ZooKeeperEndpointResolver watch(CuratorFramework client, HaConfig config) throws TmException {
        ZooKeeperClients.awaitConnected(client, config);
        ZooKeeperEndpointResolver resolver = new ZooKeeperEndpointResolver(client, false, config);
        resolver.cache.start();
        return resolver;
    }

    @Override
    public TmEndpoint current() throws TmException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        synchronized (monitor) {
            while (endpoint == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TmException("Interrupted while waiting for a primary transaction manager at "
                            + ZooKeeperClients.quorum(zk) + path, e);
                }
            }
            if (endpoint != null) {
                return endpoint;
            }
        }
        throw noPrimary(); // outside the monitor: it asks ZooKeeper, and the cache's updates need the monitor
    }

    /**
     * The error for "no primary within the discovery timeout". Its advice depends on the cluster: where a TM server
     * has run (the deployment node exists) the only fix is a primary, never an embedded TM next to it.
     */
    private TmException noPrimary() {
        String where = ZooKeeperClients.quorum(zk) + path;
        String waited = " (waited " + waitMs + " ms, " + HaConfig.DISCOVERY_TIMEOUT_MS + ")";
        Boolean deployed = deployed();
        if (Boolean.TRUE.equals(deployed)) {
            return new TmException("No transaction manager is registered in ZooKeeper at " + where + waited
                    + ", although this cluster runs TM servers (" + deploymentPath + " exists): start or restart"
                    + " bin/tm-server, or wait for its failover to finish, and retry. No embedded TM is started on"
                    + " such a cluster: two TMs would decide transactions on the same tables with separate conflict"
                    + " tables and unrelated timestamps");
        }
        return new TmException("No transaction manager is registered in ZooKeeper at " + where + waited
                + "; start one with bin/tm-server or use phoenix.txn.tm.mode=embedded"
                + (deployed == null ? "" : " (no TM server has ever run under this path: check "
                + HaConfig.ZK_PATH + " if one should have)"));
    }

    /** Whether the deployment node exists; null when ZooKeeper cannot say (the error then gives both fixes). */
    private Boolean deployed() {
        try {
            return zk.checkExists().forPath(deploymentPath) != null;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }

    @Override
    public void onChange(Runnable listener) {
        listeners.add(Objects.requireNonNull(listener));
    }

    @Override
    public void close() {
        cache.close();
        if (ownsClient) {
            zk.close();
        }
        listeners.clear();
    }

    private void update(ChildData data) {
        TmEndpoint next = null;
        if (data != null) {
            Optional<TmEndpoint> decoded = EndpointCodec.decode(data.getData());
            if (decoded.isEmpty()) {
                LOG.warn("Ignoring {}: it does not hold host:port#epoch", path);
            }
            next = decoded.orElse(null);
        }
        synchronized (monitor) {
            if (Objects.equals(next, endpoint)) {
                return;
            }
            endpoint = next;
            monitor.notifyAll();
        }
        LOG.info("Primary transaction manager at {} is now {}", path, next == null ? "(none)" : next);
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("TM endpoint listener failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "ZooKeeper TM endpoint at " + ZooKeeperClients.quorum(zk) + path;
    }
}
