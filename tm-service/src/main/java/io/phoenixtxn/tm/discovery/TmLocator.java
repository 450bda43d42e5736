package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
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

import java.util.function.Function;

/**
 * Finds the transaction manager of a client: the one place that decides which TM a JVM uses. The Phoenix provider
 * calls {@link #locate} per connection service, a plain HBase application calls it for its {@code TxnClient}, and
 * region servers use {@link #inBackground} (same rules, never blocks, never starts a TM).
 *
 * <p><b>The rule: one TM per cluster.</b> Two TMs deciding transactions on the same tables have separate conflict
 * tables and unrelated timestamps: lost updates and snapshots that miss committed data. A cluster <em>has a TM
 * deployment</em> when its timestamp znode exists ({@link TmDeployment}: a TM server creates it when it starts, and
 * nothing deletes it). On such a cluster a client never starts a TM of its own, whatever happens to the servers.
 *
 * <p><b>Modes</b> ({@link TmMode#KEY}):
 * <ul>
 *   <li>{@code auto} (default):
 *     <ol>
 *       <li>this JVM serves the cluster's TM ({@link EmbeddedTm#adopt}: the stack's --serve, HA tests): in
 *           process;</li>
 *       <li>a ZooKeeper quorum is configured: look for the deployment (bounded by the ZooKeeper connect timeout).
 *           Deployed: the advertised primary, waiting up to {@link HaConfig#DISCOVERY_TIMEOUT_MS} for one (a
 *           failover or a rolling restart), then a clear error naming the quorum, the path and the fix. Not
 *           deployed: the JVM's embedded TM under an {@link EmbeddedGuard} (see below). ZooKeeper unreachable or
 *           failing: a clear error naming the quorum and the fix, never an embedded TM;</li>
 *       <li>no quorum configured: the embedded TM (no TM server can be found without ZooKeeper anyway).</li>
 *     </ol></li>
 *   <li>{@code embedded}: in process (served, else the embedded TM). With a quorum configured it follows the same
 *       guard as {@code auto}, and refuses with a clear error where the cluster has a deployment this JVM does not
 *       serve. There is no override: two TMs on one cluster are never correct.</li>
 *   <li>{@code remote}: the advertised primary only (waits for it, then fails as above); needs a quorum.</li>
 * </ul>
 *
 * <p><b>The race with a TM server that arrives later</b> is closed by a Dekker pair on ZooKeeper's linearizable
 * writes, each read after a {@code sync}: a client that chose the embedded TM registers an ephemeral marker and
 * only then reads the deployment again; a TM server declares the deployment and only then reads the markers, and
 * does not become primary while there are any (its log names the JVMs). At least one sees the other. The embedded
 * TM answers a client only while its marker is certain (held like a lease, {@link GuardedTransactionManager}); after
 * a ZooKeeper disconnection the marker is re-established before the next answer, or the client fails with an error
 * if a deployment appeared meanwhile. (Improvement over the bare check: without the guard, a JVM whose ZooKeeper
 * session expired would lose its marker while its embedded TM kept deciding next to a TM server started then.)
 *
 * <p>An embedded TM is one per JVM ({@link EmbeddedTm}); its timestamps follow the wall clock. Moving a cluster
 * from embedded TMs to a TM server therefore means stopping the embedded JVMs first (the server waits for their
 * markers to vanish), then starting them again: in {@code auto} they find the server.
 */
public final class TmLocator {
    private static final Logger LOG = LoggerFactory.getLogger(TmLocator.class);

    private TmLocator() {
    }

    /**
     * The TM a client should use, from its settings (hbase-site.xml keys). Blocks at most for the ZooKeeper connect
     * timeout plus, where the cluster is deployed and no primary is advertised, the discovery timeout.
     */
    public static TmHandle locate(Function<String, String> settings) throws TmException {
        TmMode mode = TmMode.from(settings);
        HaConfig ha = HaConfig.from(settings);
        if (mode == TmMode.REMOTE) {
            if (!ha.isEnabled()) {
                throw new IllegalArgumentException(mode + " needs a ZooKeeper quorum to find the TM: set "
                        + HaConfig.ZK_QUORUM + " or " + HaConfig.HBASE_QUORUM);
            }
            return remote(ZooKeeperClients.connect(ha), ha, settings);
        }
        if (EmbeddedTm.isServedHere()) {
            return served(mode);
        }
        if (!ha.isEnabled()) {
            return unguarded(settings, mode);
        }
        CuratorFramework zk = connectToLook(ha, mode);
        boolean handedOver = false;
        try {
            EmbeddedGuard guard = null;
            TmDeployment deployment = new TmDeployment(zk, ha);
            try {
                if (!deployment.exists()) {
                    guard = EmbeddedGuard.register(zk, ha, mode);
                }
            } catch (TmException e) {
                throw cannotTell(ha, mode, e);
            }
            if (guard != null) {
                handedOver = true;
                return guarded(settings, mode, guard);
            }
            if (mode == TmMode.EMBEDDED) {
                throw new TmException(mode + " refused: the cluster at " + deployment.where() + " runs TM servers"
                        + " (" + ha.paths().timestamp() + " exists) and this JVM does not serve its TM. Two TMs"
                        + " would decide transactions on the same tables with separate conflict tables and unrelated"
                        + " timestamps. Use " + TmMode.AUTO + " or " + TmMode.REMOTE + " to use the cluster's TM"
                        + " server; embedded mode is for a cluster without one");
            }
            handedOver = true;
            return remote(zk, ha, settings);
        } finally {
            if (!handedOver) {
                zk.close();
            }
        }
    }

    /**
     * The region-server flavour: same rules, but it never starts a TM and {@link BackgroundTmLocator#get()} never
     * blocks (it connects in the background and answers null, "no TM", until then).
     */
    public static BackgroundTmLocator inBackground(Function<String, String> settings) {
        return BackgroundTmLocator.start(settings);
    }

    private static CuratorFramework connectToLook(HaConfig ha, TmMode mode) throws TmException {
        try {
            return ZooKeeperClients.connect(ha);
        } catch (TmException e) {
            throw cannotTell(ha, mode, e);
        }
    }

    private static TmException cannotTell(HaConfig ha, TmMode mode, TmException cause) {
        return new TmException(mode + " could not tell whether the cluster at " + ha.quorum() + ha.basePath()
                + " runs a TM server, so it starts no TM of its own (two TMs on one cluster are never correct): "
                + cause.getMessage(), cause);
    }

    /**
     * Waits for an advertised primary (a clear error after the discovery timeout), then connects to it. Owns
     * {@code zk} from the call on: the handle closes it, or this method does if it fails.
     */
    private static TmHandle remote(CuratorFramework zk, HaConfig ha, Function<String, String> settings)
            throws TmException {
        RemoteTransactionManager tm;
        try {
            ZooKeeperEndpointResolver resolver = ZooKeeperEndpointResolver.watch(zk, ha);
            try {
                resolver.current();
            } catch (TmException | RuntimeException e) {
                resolver.close();
                throw e;
            }
            tm = RemoteTransactionManager.connect(resolver, RemoteTmConfig.from(settings)); // owns the resolver
        } catch (TmException | RuntimeException e) {
            zk.close();
            throw e;
        }
        String description = "the TM server advertised at " + ha.quorum() + ha.paths().primary();
        LOG.info("Transactions use {}", description);
        return new TmHandle() {
            @Override
            public TransactionManager get() {
                return tm;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public void close() {
                try {
                    tm.close();
                } finally {
                    zk.close();
                }
            }
        };
    }

    private static TmHandle served(TmMode mode) {
        TransactionManager notPrimary = new UnavailableTransactionManager("This JVM serves its transaction manager"
                + " through ZooKeeper HA and is not primary right now (lease lost); transactions resume when it or a"
                + " backup is");
        LOG.info("Transactions use the TM this JVM serves ({})", mode);
        return new TmHandle() {
            @Override
            public TransactionManager get() {
                TransactionManagerCore tm = EmbeddedTm.served();
                return tm != null ? tm : notPrimary;
            }

            @Override
            public String description() {
                return "the TM this JVM serves";
            }

            @Override
            public void close() {
                // The served TM belongs to the JVM, not to one client.
            }
        };
    }

    private static TmHandle unguarded(Function<String, String> settings, TmMode mode) {
        TmConfig config = TmConfig.from(settings);
        EmbeddedTm.shared(config);
        LOG.info("Transactions use this JVM's embedded TM ({}, no ZooKeeper quorum configured)", mode);
        return new TmHandle() {
            @Override
            public TransactionManager get() {
                return EmbeddedTm.shared(config);
            }

            @Override
            public String description() {
                return "this JVM's embedded TM (no ZooKeeper quorum configured)";
            }

            @Override
            public void close() {
                // The embedded TM belongs to the JVM, not to one client.
            }
        };
    }

    private static TmHandle guarded(Function<String, String> settings, TmMode mode, EmbeddedGuard guard) {
        TmConfig config;
        try {
            config = TmConfig.from(settings);
            EmbeddedTm.shared(config);
        } catch (RuntimeException e) {
            guard.close();
            throw e;
        }
        TransactionManager tm = new GuardedTransactionManager(config, guard);
        String description = "this JVM's embedded TM (the cluster has no TM server; marker " + guard.marker() + ")";
        LOG.info("Transactions use {} ({})", description, mode);
        return new TmHandle() {
            @Override
            public TransactionManager get() {
                return tm;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public void close() {
                guard.close();
            }
        };
    }
}
