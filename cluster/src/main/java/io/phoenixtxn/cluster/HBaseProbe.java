package io.phoenixtxn.cluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Questions to the cluster's HBase through its client API, each bounded (few retries, short timeouts): which
 * region servers the master counts as live, whether the master finished initialising, and the cluster shutdown
 * that HBase's own stop script asks for.
 */
public final class HBaseProbe implements AutoCloseable {
    private final Connection connection;
    private final Admin admin;

    private HBaseProbe(Connection connection) throws IOException {
        this.connection = connection;
        this.admin = connection.getAdmin();
    }

    public static HBaseProbe connect(ClusterState state) throws IOException {
        Configuration conf = HBaseConfiguration.create();
        conf.set(HConstants.ZOOKEEPER_QUORUM, Loopback.HOST);
        conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, state.port(Role.ZK));
        conf.set(HConstants.ZOOKEEPER_ZNODE_PARENT, HBaseSettings.ZNODE_PARENT);
        conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 1);
        conf.setInt(HConstants.HBASE_CLIENT_PAUSE, 100);
        conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, 5_000);
        conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 10_000);
        conf.setInt("zookeeper.recovery.retry", 1);
        return new HBaseProbe(ConnectionFactory.createConnection(conf));
    }

    /** Ports of the region servers the master counts as live. */
    public Set<Integer> liveRegionServerPorts() throws IOException {
        ClusterMetrics metrics = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
        Set<Integer> ports = new TreeSet<>();
        for (ServerName server : metrics.getLiveServerMetrics().keySet()) {
            ports.add(server.getPort());
        }
        return ports;
    }

    /** Start codes (start times, ms) of the live region servers on {@code port}: an old and a restarted one. */
    public List<Long> liveRegionServerStartCodes(int port) throws IOException {
        ClusterMetrics metrics = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
        List<Long> startCodes = new ArrayList<>();
        for (ServerName server : metrics.getLiveServerMetrics().keySet()) {
            if (server.getPort() == port) {
                startCodes.add(server.getStartcode());
            }
        }
        return startCodes;
    }

    /** True once the master finished initialising: system tables online, namespaces answered. */
    public boolean masterInitialized() throws IOException {
        admin.listNamespaceDescriptors(); // PleaseHoldException until the master is initialised
        return admin.isTableAvailable(TableName.META_TABLE_NAME);
    }

    /** Asks the master to stop the cluster: region servers close their regions (flushing them), then all exit. */
    public void shutdownCluster() throws IOException {
        admin.shutdown();
    }

    /** Closing a probe that failed has nothing to report: its errors were reported by the questions. */
    @Override
    public void close() {
        try {
            admin.close();
            connection.close();
        } catch (IOException | RuntimeException e) {
            // nothing to do
        }
    }
}
