package io.phoenixtxn.admin;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

import java.io.IOException;

/**
 * The cluster an admin command works on, and how it reaches each part: ZooKeeper (where the TM is advertised), HBase
 * (the commit table) and Phoenix (index checks). Every connection is checked in a bounded time, outermost first, so a
 * failure names the part that is down: ZooKeeper, then HBase's master, then the TM.
 *
 * <p>Invariant: nothing here writes to ZooKeeper or begins a transaction; only {@code clean} writes (commit cells of
 * transactions that committed, exactly as every client's cleaner does).
 */
final class AdminTarget implements AutoCloseable {
    /** Admin commands are interactive: give up on an unreachable ZooKeeper sooner than a TM server would. */
    static final long DEFAULT_ZK_CONNECT_TIMEOUT_MS = 5_000;

    private final Configuration conf;
    private CuratorFramework zk;
    private Connection hbase;

    AdminTarget(Configuration conf) {
        this.conf = conf;
        if (conf.get(HaConfig.ZK_CONNECT_TIMEOUT_MS) == null) {
            conf.setLong(HaConfig.ZK_CONNECT_TIMEOUT_MS, DEFAULT_ZK_CONNECT_TIMEOUT_MS);
        }
        // Bounded HBase client: an admin command fails in seconds, it does not retry for minutes.
        conf.setIfUnset(HConstants.HBASE_CLIENT_RETRIES_NUMBER, "3");
        conf.setIfUnset(HConstants.HBASE_RPC_TIMEOUT_KEY, "10000");
        conf.setIfUnset(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, "30000");
        conf.setIfUnset(HConstants.HBASE_CLIENT_META_OPERATION_TIMEOUT, "30000");
        conf.setIfUnset("zookeeper.recovery.retry", "1");
    }

    Configuration conf() {
        return conf;
    }

    HaConfig haConfig() {
        return HaConfig.from(conf::get);
    }

    /** The quorum as configured, for messages. */
    String quorum() {
        HaConfig ha = haConfig();
        return ha.isEnabled() ? ha.quorum() : "(none configured)";
    }

    /** A connected ZooKeeper client, or the reason none could be had. */
    CuratorFramework zooKeeper() throws AdminException {
        if (zk == null) {
            HaConfig ha = haConfig();
            if (!ha.isEnabled()) {
                throw new AdminException("no ZooKeeper quorum is configured; pass --zk HOST:PORT (the stack prints it"
                        + " in its JDBC URL) or set hbase.zookeeper.quorum");
            }
            try {
                zk = ZooKeeperClients.connect(ha);
            } catch (TmException e) {
                throw new AdminException("ZooKeeper at " + ha.quorum() + " is unreachable (no connection within "
                        + ha.connectTimeoutMs() + " ms); start the cluster (or bin/phoenix-txn-stack), or pass --zk"
                        + " HOST:PORT of a running quorum", e);
            }
        }
        return zk;
    }

    /** An HBase connection whose master is registered in ZooKeeper, or the reason it is not. */
    Connection hbase() throws AdminException {
        if (hbase == null) {
            String parent = conf.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT);
            String master = parent + "/master";
            try {
                if (zooKeeper().checkExists().forPath(master) == null) {
                    throw new AdminException("HBase is not running: no master is registered at " + master
                            + " in ZooKeeper " + quorum() + "; start HBase (or bin/phoenix-txn-stack), or fix "
                            + HConstants.ZOOKEEPER_ZNODE_PARENT);
                }
            } catch (AdminException e) {
                throw e;
            } catch (Exception e) {
                throw new AdminException("ZooKeeper at " + quorum() + " failed to answer (" + e
                        + "); check the quorum", e);
            }
            try {
                hbase = ConnectionFactory.createConnection(conf);
            } catch (IOException e) {
                throw new AdminException("HBase behind ZooKeeper " + quorum() + " is unreachable (" + oneLine(e)
                        + "); check that its master and region servers run", e);
            }
        }
        return hbase;
    }

    /** Phoenix's JDBC URL for this cluster (the quorum, as the stack prints it). */
    String jdbcUrl() throws AdminException {
        HaConfig ha = haConfig();
        if (!ha.isEnabled()) {
            zooKeeper(); // throws the explanation
        }
        String parent = conf.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT);
        java.util.List<String> hosts = new java.util.ArrayList<>();
        java.util.Set<String> ports = new java.util.TreeSet<>();
        for (String server : ha.quorum().split(",")) {
            int colon = server.lastIndexOf(':');
            hosts.add(server.substring(0, colon));
            ports.add(server.substring(colon + 1));
        }
        if (ports.size() == 1) {
            return "jdbc:phoenix:" + String.join(",", hosts) + ":" + ports.iterator().next() + ":" + parent;
        }
        // Servers on different ports: Phoenix 5.2's form with escaped host:port pairs.
        return "jdbc:phoenix:" + ha.quorum().replace(":", "\\:") + "::" + parent;
    }

    static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    @Override
    public void close() {
        if (hbase != null) {
            try {
                hbase.close();
            } catch (IOException ignored) {
                // the command is done; a failing close changes nothing it printed
            }
        }
        if (zk != null) {
            zk.close();
        }
    }
}
