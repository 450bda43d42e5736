package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.ZooKeeperEndpointResolver;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The TM a region server asks about pending writers ({@code PendingStatus}). A region server never starts a TM of
 * its own: it uses the JVM's TM when there is one (the embedded stack, tests), else the primary advertised in
 * ZooKeeper, connected in the background so no RPC handler ever waits for it. Until then (or without any TM) it
 * answers null and readers fall back to the Omid LL rule (wait, then force-abort), which is always correct.
 */
final class RegionServerTm {
    private static final Logger LOG = LoggerFactory.getLogger(RegionServerTm.class);
    private static final AtomicBoolean CONNECTING = new AtomicBoolean();
    private static volatile Configuration configuration;
    private static volatile TransactionManager remote;

    private RegionServerTm() {
    }

    /** Remembers the region server's configuration (the first observer to start wins; all share one). */
    static void configure(Configuration conf) {
        if (configuration == null) {
            configuration = conf;
        }
    }

    static TransactionManager current() {
        TransactionManager local = EmbeddedTm.existing();
        if (local != null) {
            return local;
        }
        TransactionManager connected = remote;
        if (connected == null) {
            connectInBackground();
        }
        return connected;
    }

    private static void connectInBackground() {
        Configuration conf = configuration;
        if (conf == null || !CONNECTING.compareAndSet(false, true)) {
            return;
        }
        Thread connector = new Thread(() -> {
            try {
                HaConfig ha = HaConfig.from(conf::get);
                if (ha.isEnabled()) {
                    remote = RemoteTransactionManager.connect(ZooKeeperEndpointResolver.connect(ha),
                            RemoteTmConfig.from(conf::get));
                    LOG.info("Region server readers ask the TM advertised in ZooKeeper {}{} about pending writers",
                            ha.quorum(), ha.basePath());
                }
            } catch (Exception e) {
                LOG.info("No TM reachable from this region server ({}); readers use wait-then-force-abort",
                        e.getMessage());
                CONNECTING.set(false); // a later read tries again
            }
        }, "phoenix-txn-rs-tm-connect");
        connector.setDaemon(true);
        connector.start();
    }
}
