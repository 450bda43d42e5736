package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmEndpointResolver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Finds the primary TM through ZooKeeper: watches the primary's advertisement ({@code <path>/tm/primary}, see
 * {@link PrimaryAdvertiser}) and tells the client when it changes, so a failover needs no user code. While no primary
 * is advertised (during a failover) {@link #current()} waits for one, at most {@link HaConfig#DISCOVERY_TIMEOUT_MS},
 * then fails saying how to get one: on a cluster that has run TM servers ({@link TmDeployment}) that is a primary,
 * never an embedded TM.
 *
 * <p>Invariant: after every watch event and every (re)connection of the ZooKeeper client the node is read again, and
 * the endpoint held is the value of the newest read. Reads run one at a time on one thread, each setting the watch
 * that reports the next change, so no change after a read goes unnoticed. Changes made while this client was
 * disconnected fire no watch: the read on reconnection finds them. (Curator's {@code CuratorCache} does not: on
 * reconnection it keeps its copy when the znode version is unchanged, and a failover replaces the advertisement by
 * delete and create, so the successor's node has version 0 like the deposed one's: issue 14's client kept dialing a
 * deposed primary.) The endpoint is compared by value ({@code host:port#epoch}), never by znode version.
 */
public final class ZooKeeperEndpointResolver implements TmEndpointResolver {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEndpointResolver.class);
    /** A read that failed while ZooKeeper seemed connected is retried after this long (a reconnection retries too). */
    private static final long RETRY_MS = 1_000;

    private final CuratorFramework zk;
    private final boolean ownsClient;
    private final String path;
    private final String deploymentPath;
    private final long waitMs;
    /** Registers this resolver's watches so that close() removes them from a client the caller keeps using. */
    private final WatcherRemoveCuratorFramework watches;
    private final ScheduledExecutorService reader;
    private final AtomicBoolean readQueued = new AtomicBoolean();
    private final Watcher nodeWatcher = event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
            scheduleRead(0);
        }
    };
    private final ConnectionStateListener reconnection = (client, state) -> {
        if (state == ConnectionState.RECONNECTED || state == ConnectionState.CONNECTED) {
            scheduleRead(0); // same session or a new one: changes made while disconnected fired no watch here
        }
    };
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final Object monitor = new Object();
    private volatile boolean closed;
    private TmEndpoint endpoint;

    private ZooKeeperEndpointResolver(CuratorFramework zk, boolean ownsClient, HaConfig config) {
        this.zk = zk;
        this.ownsClient = ownsClient;
        this.path = config.paths().primary();
        this.deploymentPath = config.paths().timestamp();
        this.waitMs = config.discoveryTimeoutMs();
        this.watches = zk.newWatcherRemoveCuratorFramework();
        this.reader = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tm-endpoint-watch");
            thread.setDaemon(true);
            return thread;
        });
    }

    private void start() {
        zk.getConnectionStateListenable().addListener(reconnection);
        scheduleRead(0);
    }

    /** Connects to the configured quorum (bounded, with a clear error) and watches the advertisement. */
    public static ZooKeeperEndpointResolver connect(HaConfig config) throws TmException {
        CuratorFramework client = ZooKeeperClients.connect(config);
        try {
            ZooKeeperEndpointResolver resolver = new ZooKeeperEndpointResolver(client, true, config);
            resolver.start();
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
        resolver.start();
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
        throw noPrimary(); // outside the monitor: it asks ZooKeeper, and the reader's updates need the monitor
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
        closed = true;
        zk.getConnectionStateListenable().removeListener(reconnection);
        reader.shutdownNow();
        try {
            watches.removeWatchers(); // a shared client keeps running: leave no watch of ours on it
        } catch (RuntimeException e) {
            LOG.debug("Could not remove the watches on {}", path, e);
        }
        if (ownsClient) {
            zk.close();
        }
        listeners.clear();
    }

    /** Queues one read of the node unless one is queued already (a read in progress does not count: it may be old). */
    private void scheduleRead(long delayMs) {
        if (closed || !readQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            reader.schedule(this::read, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            readQueued.set(false); // closing
        }
    }

    /** Reads the advertisement and sets the watch for its next change; on the reader thread only. */
    private void read() {
        readQueued.set(false); // a trigger from now on may follow a change this read misses: it queues another read
        if (closed) {
            return;
        }
        try {
            byte[] data;
            try {
                data = watches.getData().usingWatcher(nodeWatcher).forPath(path);
            } catch (KeeperException.NoNodeException e) {
                // getData sets no watch on a missing node; exists does, and tells if it appeared meanwhile.
                if (watches.checkExists().usingWatcher(nodeWatcher).forPath(path) != null) {
                    scheduleRead(0);
                    return;
                }
                data = null;
            }
            update(data);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                return; // close() interrupts the reader
            }
            if (closed) {
                return;
            }
            // Disconnected: the reconnection reads again. Otherwise retry, so no change stays unread for long.
            LOG.debug("Reading {} failed; reading it again after {} ms or at reconnection", path, RETRY_MS, e);
            scheduleRead(RETRY_MS);
        }
    }

    /** Takes the advertisement's bytes (null: no node) as the current endpoint and tells listeners if it changed. */
    private void update(byte[] data) {
        TmEndpoint next = null;
        if (data != null) {
            Optional<TmEndpoint> decoded = EndpointCodec.decode(data);
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
