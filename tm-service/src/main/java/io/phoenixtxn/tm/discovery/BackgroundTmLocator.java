package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.ha.ZooKeeperEndpointResolver;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link TmLocator}'s rules for a region server, which asks a TM only about pending writers and may always answer
 * "no TM" instead (readers then wait and force-abort, the Omid LL rule). So it never starts a TM and {@link #get()}
 * never blocks an RPC handler; it answers, in this order:
 * <ol>
 *   <li>the TM this JVM serves ({@link EmbeddedTm#adopt}), null while it is not primary;</li>
 *   <li>this JVM's in-memory TM, only while a client of this JVM holds an {@link EmbeddedGuard} on the same
 *       cluster (its marker proves the cluster has no TM server that could be primary), or when no ZooKeeper
 *       quorum is configured at all;</li>
 *   <li>the cluster's advertised primary, found and connected in the background when the cluster has a TM
 *       deployment; null until then, and a new attempt at most every {@link #retryMs} while there is none.</li>
 * </ol>
 * An in-memory TM that no guard covers (started directly, or on a cluster that has a TM server) is never asked: its
 * "not decided" about a writer the cluster's TM committed would hide a committed write from a reader.
 */
public final class BackgroundTmLocator implements Supplier<TransactionManager>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundTmLocator.class);
    private static final long MAX_RETRY_MS = 2_000;

    /** Null when the settings cannot be used (the error was logged): only a served TM is then answered. */
    private final HaConfig ha;
    private final RemoteTmConfig remoteConfig;
    private final ClusterId cluster;
    private final long retryMs;
    private final AtomicBoolean connecting = new AtomicBoolean();
    private volatile long nextAttemptNanos = System.nanoTime();
    private volatile RemoteTransactionManager remote;
    private CuratorFramework remoteZk;
    private boolean closed;

    private BackgroundTmLocator(HaConfig ha, RemoteTmConfig remoteConfig) {
        this.ha = ha;
        this.remoteConfig = remoteConfig;
        this.cluster = ha == null ? null : ClusterId.of(ha);
        this.retryMs = ha == null ? MAX_RETRY_MS : Math.min(MAX_RETRY_MS, ha.discoveryTimeoutMs());
    }

    /** Reads the settings and starts looking for the cluster's TM at once, in the background. */
    static BackgroundTmLocator start(Function<String, String> settings) {
        HaConfig ha = null;
        RemoteTmConfig remoteConfig = null;
        try {
            ha = HaConfig.from(settings);
            remoteConfig = RemoteTmConfig.from(settings);
        } catch (RuntimeException e) {
            LOG.error("This server cannot look for the cluster's TM ({}); its readers ask no TM about pending writers"
                    + " (they wait, then force-abort)", e.getMessage());
        }
        BackgroundTmLocator locator = new BackgroundTmLocator(ha, remoteConfig);
        locator.connectInBackground();
        return locator;
    }

    /** The TM to ask now, or null ("no TM"); never blocks, never starts a TM. */
    @Override
    public TransactionManager get() {
        if (EmbeddedTm.isServedHere()) {
            return EmbeddedTm.served();
        }
        if (ha == null) {
            return null;
        }
        if (!ha.isEnabled() || EmbeddedGuard.isHeldFor(cluster)) {
            TransactionManagerCore local = EmbeddedTm.inMemory();
            if (local != null) {
                return local;
            }
        }
        RemoteTransactionManager connected = remote;
        if (connected == null) {
            connectInBackground();
        }
        return connected;
    }

    /** How long after a failed or fruitless attempt the next one may start. */
    long retryMs() {
        return retryMs;
    }

    @Override
    public void close() {
        RemoteTransactionManager tm;
        CuratorFramework zk;
        synchronized (this) {
            closed = true;
            tm = remote;
            zk = remoteZk;
            remote = null;
            remoteZk = null;
        }
        if (tm != null) {
            tm.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private void connectInBackground() {
        if (ha == null || !ha.isEnabled() || EmbeddedTm.isServedHere() || System.nanoTime() - nextAttemptNanos < 0
                || !connecting.compareAndSet(false, true)) {
            return;
        }
        Thread connector = new Thread(this::connect, "phoenix-txn-tm-locator");
        connector.setDaemon(true);
        connector.start();
    }

    /** One attempt: the deployment, then its primary; keeps the connection for the life of this locator. */
    private void connect() {
        try {
            CuratorFramework zk = ZooKeeperClients.connect(ha);
            boolean kept = false;
            try {
                if (!new TmDeployment(zk, ha).exists()) {
                    LOG.debug("The cluster at {}{} has no TM server; readers here ask no TM", ha.quorum(),
                            ha.basePath());
                    return;
                }
                RemoteTransactionManager tm = RemoteTransactionManager.connect(ZooKeeperEndpointResolver.watch(zk, ha),
                        remoteConfig);
                synchronized (this) {
                    if (closed) {
                        tm.close();
                        return;
                    }
                    remote = tm;
                    remoteZk = zk;
                    kept = true;
                }
                LOG.info("Region server readers ask the TM advertised in ZooKeeper {}{} about pending writers",
                        ha.quorum(), ha.basePath());
            } finally {
                if (!kept) {
                    zk.close();
                }
            }
        } catch (Exception e) {
            LOG.info("No TM reachable from this server ({}); readers use wait-then-force-abort", e.getMessage());
        } finally {
            nextAttemptNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryMs);
            connecting.set(false);
        }
    }
}
