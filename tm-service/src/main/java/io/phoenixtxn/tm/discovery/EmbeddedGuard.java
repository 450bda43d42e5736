package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.ZkPaths;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ephemeral marker ({@link ZkPaths#embedded(String)}) by which a JVM that decides transactions with an embedded
 * TM keeps TM servers of its cluster from becoming primary, and the proof that it may go on doing so.
 *
 * <p><b>Registration</b> (only on a cluster without a TM deployment): write the marker, then read the deployment
 * after a sync. A TM server does the converse ({@link TmDeployment}: declare, then read the markers), so at least one
 * of the two sees the other; a guard that sees the deployment withdraws its marker and is never held.
 *
 * <p><b>Held</b> while the marker is certainly there: the guard's ZooKeeper session is connected and no connection
 * event or deletion of the marker was seen since it was last checked. The ZooKeeper client reports a disconnection
 * after 2/3 of the session timeout without an answer, and the ensemble expires the session (deleting the marker)
 * only after all of it, so the guard stops being held before a TM server can see the marker gone. An unheld guard is
 * re-established on the next call ({@link #ensureHeld}): marker in the current session, deployment read again; a
 * deployment seen then supersedes the guard for good (a TM server arrived while this JVM was cut off).
 *
 * <p>Closing stops holding first and then ends the session, which deletes the marker. Live guards are listed per
 * JVM so that a region server in the same JVM can rely on one ({@link #isHeldFor}).
 */
final class EmbeddedGuard implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedGuard.class);
    private static final Set<EmbeddedGuard> LIVE = ConcurrentHashMap.newKeySet();
    private static final int ATTEMPTS = 3;

    /** What one attempt to establish the guard found. */
    private enum Outcome { HELD, SUPERSEDED, CONNECTION_CHANGED }

    private final CuratorFramework zk;
    private final HaConfig config;
    private final TmDeployment deployment;
    private final ClusterId cluster;
    private final String namePrefix;
    private final byte[] description;
    private final AtomicLong registrations = new AtomicLong();
    /** Bumped by every connection event and marker deletion seen; an establishment that saw one is not trusted. */
    private final AtomicLong changes = new AtomicLong();
    private final ConnectionStateListener stateListener = (client, state) -> {
        if (state != ConnectionState.CONNECTED) { // CONNECTED is the first connection, before registration
            lose();
        }
    };
    /**
     * Also sees the session's own state changes, on ZooKeeper's event thread and so before any later event of the
     * session: a disconnection or expiry drops the guard without waiting for Curator's listener thread.
     */
    private final Watcher markerWatcher = event -> {
        if (event.getType() == Watcher.Event.EventType.NodeDeleted
                || event.getState() == Watcher.Event.KeeperState.Disconnected
                || event.getState() == Watcher.Event.KeeperState.Expired) {
            lose();
        }
    };
    private volatile String marker;
    private volatile boolean held;
    private volatile boolean superseded;
    private volatile boolean closed;

    private EmbeddedGuard(CuratorFramework zk, HaConfig config, TmMode mode) {
        this.zk = zk;
        this.config = config;
        this.deployment = new TmDeployment(zk, config);
        this.cluster = ClusterId.of(config);
        String host = HostName.LOCAL;
        long pid = ProcessHandle.current().pid();
        this.namePrefix = host.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + pid + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        this.description = ("embedded TM of pid " + pid + " on " + host + " (" + mode + ", since " + Instant.now()
                + ")").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Registers a marker for an embedded TM on a cluster that has no TM deployment. Returns null, leaving nothing
     * behind, when the cluster has one after all. The returned guard owns {@code zk}; otherwise the caller still does.
     */
    static EmbeddedGuard register(CuratorFramework zk, HaConfig config, TmMode mode) throws TmException {
        EmbeddedGuard guard = new EmbeddedGuard(zk, config, mode);
        zk.getConnectionStateListenable().addListener(guard.stateListener);
        boolean registered = false;
        try {
            registered = guard.establishWithRetries();
        } finally {
            if (!registered) {
                guard.withdraw();
            }
        }
        if (!registered) {
            return null;
        }
        LIVE.add(guard);
        LOG.info("Registered embedded TM marker {} at {}", guard.marker, ZooKeeperClients.quorum(zk));
        return guard;
    }

    /** True while some live guard of this JVM holds its marker on {@code cluster}. */
    static boolean isHeldFor(ClusterId cluster) {
        for (EmbeddedGuard guard : LIVE) {
            if (guard.cluster.sameAs(cluster) && guard.isHeld()) {
                return true;
            }
        }
        return false;
    }

    /** Cheap (two volatile reads): true while the marker is certainly in ZooKeeper. */
    boolean isHeld() {
        return held && !closed && zk.getZookeeperClient().isConnected();
    }

    /** Returns at once while held; else re-establishes the marker (bounded by ZooKeeper timeouts) or fails why. */
    void ensureHeld() throws TmException {
        if (isHeld()) {
            return;
        }
        synchronized (this) {
            if (closed) {
                throw new TmException("The embedded TM's client is closed (" + marker() + ")");
            }
            if (isHeld()) {
                return;
            }
            if (superseded) {
                throw supersededError();
            }
            try {
                ZooKeeperClients.awaitConnected(zk, config);
            } catch (TmException e) {
                throw new TmException("This JVM's embedded TM answers nothing while its marker " + marker()
                        + " cannot be confirmed (a TM server of the cluster may take over meanwhile): "
                        + e.getMessage(), e);
            }
            if (!establishWithRetries()) {
                throw supersededError();
            }
            LOG.info("Embedded TM marker {} confirmed again after a ZooKeeper connection change", marker);
        }
    }

    /** After a call answered: if the guard was lost meanwhile, the answer must not leave this JVM. */
    void confirm(String call) throws TmException {
        if (!isHeld()) {
            throw new TmException(call + " of this JVM's embedded TM is withheld: its ZooKeeper marker " + marker()
                    + " was not certain when the answer was ready (ZooKeeper connection lost or changed), and a TM"
                    + " server of the cluster may have taken over. Nothing of the transaction is visible; retry it");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            held = false;
        }
        withdraw();
    }

    String marker() {
        String m = marker;
        return ZooKeeperClients.quorum(zk) + (m == null ? config.paths().embedded() + "/" + namePrefix + "-*" : m);
    }

    private void lose() {
        held = false;
        changes.incrementAndGet();
    }

    /** True when held, false when superseded by a deployment; tries again when the connection changed meanwhile. */
    private synchronized boolean establishWithRetries() throws TmException {
        for (int attempt = 1; ; attempt++) {
            Outcome outcome = establish();
            if (outcome == Outcome.HELD) {
                return true;
            }
            if (outcome == Outcome.SUPERSEDED) {
                return false;
            }
            if (attempt == ATTEMPTS) {
                throw new TmException("The ZooKeeper connection to " + ZooKeeperClients.quorum(zk) + " changed "
                        + ATTEMPTS + " times while this JVM registered its embedded TM marker; check ZooKeeper's"
                        + " health and retry");
            }
            ZooKeeperClients.awaitConnected(zk, config);
        }
    }

    /** Marker first, deployment second: the order that makes the check with TM servers airtight. */
    private Outcome establish() throws TmException {
        long seen = changes.get();
        long session = sessionId();
        if (!markerOwnedBy(session)) {
            createMarker();
        }
        if (deployment.exists()) {
            superseded = true;
            held = false;
            deleteMarker();
            LOG.warn("The cluster at {} has a TM deployment now; this JVM's embedded TM stops answering",
                    deployment.where());
            return Outcome.SUPERSEDED;
        }
        if (changes.get() != seen || !zk.getZookeeperClient().isConnected() || sessionId() != session) {
            return Outcome.CONNECTION_CHANGED;
        }
        held = true;
        return Outcome.HELD;
    }

    private long sessionId() throws TmException {
        try {
            return zk.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "read the session of", config.paths().embedded(), e);
        }
    }

    /** Whether our marker exists and belongs to {@code session}; (re)arms the deletion watch. */
    private boolean markerOwnedBy(long session) throws TmException {
        String path = marker;
        if (path == null) {
            return false;
        }
        try {
            Stat stat = zk.checkExists().usingWatcher(markerWatcher).forPath(path);
            return stat != null && stat.getEphemeralOwner() == session;
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "check the embedded TM marker", path, e);
        }
    }

    /** A fresh name each time: a marker of an expired session may linger a moment under the old one. */
    private void createMarker() throws TmException {
        String path = config.paths().embedded(namePrefix + "-" + registrations.incrementAndGet());
        try {
            zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, description);
            marker = path;
            zk.checkExists().usingWatcher(markerWatcher).forPath(path);
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "register the embedded TM marker", path, e);
        }
    }

    private void deleteMarker() {
        String path = marker;
        if (path == null) {
            return;
        }
        try {
            zk.delete().guaranteed().forPath(path);
        } catch (Exception e) {
            LOG.debug("Could not delete the embedded TM marker {} (it goes with the session): {}", path,
                    e.getMessage());
        }
    }

    /** Unlists the guard; when closed, also ends its session, which deletes the marker. */
    private void withdraw() {
        held = false;
        LIVE.remove(this);
        zk.getConnectionStateListenable().removeListener(stateListener);
        if (closed) {
            zk.close();
        }
    }

    private TmException supersededError() {
        return new TmException("This JVM chose an embedded TM when the cluster at " + deployment.where() + " had no"
                + " TM server, and one has been deployed since (while this JVM's ZooKeeper session was interrupted)."
                + " Two TMs must never decide transactions on one cluster: this client stops using its embedded TM."
                + " Restart the JVM (or reopen its connections) to use the cluster's TM server");
    }

    /** This host's name, resolved once. */
    private static final class HostName {
        static final String LOCAL = resolve();

        private static String resolve() {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                return "unknown-host";
            }
        }
    }
}
