package io.phoenixtxn.phoenix;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.ZkPaths;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.ha.ZooKeeperEndpointResolver;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Finds the TM of a Phoenix connection service, from {@code phoenix.txn.tm.mode}:
 * <ul>
 *   <li>{@code auto} (default): this JVM's TM if it runs one; else the TM advertised in the cluster's ZooKeeper
 *       (a TM server, or an embedded stack in --serve mode), found without any setting; else an embedded TM.</li>
 *   <li>{@code embedded}: the JVM's in-process TM (one JVM only).</li>
 *   <li>{@code remote}: the TM advertised in ZooKeeper; waits for one (phoenix.txn.tm.discovery.timeout.ms).</li>
 * </ul>
 */
final class TmLocator {
    static final String MODE = "phoenix.txn.tm.mode";
    private static final Logger LOG = LoggerFactory.getLogger(TmLocator.class);

    private TmLocator() {
    }

    static TmHandle locate(Configuration conf) throws TmException {
        String mode = conf.get(MODE, "auto").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "embedded":
                return embedded(conf);
            case "remote":
                return remote(conf, requireHa(conf));
            case "auto":
                if (EmbeddedTm.isRunningHere()) {
                    return embedded(conf);
                }
                HaConfig ha = HaConfig.from(conf::get);
                if (ha.isEnabled() && primaryAdvertised(ha)) {
                    return remote(conf, ha);
                }
                return embedded(conf);
            default:
                throw new IllegalArgumentException(MODE + "='" + mode + "' is not one of auto, embedded, remote");
        }
    }

    private static TmHandle embedded(Configuration conf) {
        TmConfig config = TmConfig.from(conf::get);
        EmbeddedTm.shared(config);
        return new TmHandle() {
            @Override
            public io.phoenixtxn.tm.TransactionManager get() {
                return EmbeddedTm.shared(config);
            }

            @Override
            public void close() {
                // The embedded TM belongs to the JVM, not to one connection service.
            }
        };
    }

    private static TmHandle remote(Configuration conf, HaConfig ha) throws TmException {
        ZooKeeperEndpointResolver resolver = ZooKeeperEndpointResolver.connect(ha);
        RemoteTransactionManager tm;
        try {
            tm = RemoteTransactionManager.connect(resolver, RemoteTmConfig.from(conf::get));
        } catch (TmException | RuntimeException e) {
            resolver.close();
            throw e;
        }
        LOG.info("Using the transaction manager advertised in ZooKeeper {}{}", ha.quorum(), ha.basePath());
        return new TmHandle() {
            @Override
            public io.phoenixtxn.tm.TransactionManager get() {
                return tm;
            }

            @Override
            public void close() {
                tm.close();
                resolver.close();
            }
        };
    }

    private static HaConfig requireHa(Configuration conf) {
        HaConfig ha = HaConfig.from(conf::get);
        if (!ha.isEnabled()) {
            throw new IllegalArgumentException(MODE + "=remote needs a ZooKeeper quorum to find the TM: set "
                    + HaConfig.ZK_QUORUM + " or hbase.zookeeper.quorum");
        }
        return ha;
    }

    private static boolean primaryAdvertised(HaConfig ha) {
        try (CuratorFramework zk = ZooKeeperClients.connect(ha)) {
            return zk.checkExists().forPath(new ZkPaths(ha.basePath()).primary()) != null;
        } catch (Exception e) {
            LOG.warn("Could not look for an advertised transaction manager in ZooKeeper {} ({}); using an embedded"
                    + " one", ha.quorum(), e.getMessage());
            return false;
        }
    }
}
