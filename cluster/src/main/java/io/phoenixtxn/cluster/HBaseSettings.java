package io.phoenixtxn.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The hbase-site.xml of the cluster's master and region servers, and the one of its clients, each key with the
 * reason it is there ({@code docs/deployment.md} lists the same keys for a real cluster). There is no
 * {@code hbase.coprocessor.*} key: Phoenix names our observer in the descriptor of every transactional table, and a
 * region server loads it from its classpath, which is all an operator installs.
 */
public final class HBaseSettings {
    public static final String ZNODE_PARENT = "/hbase";

    /** One hbase-site.xml property. */
    public record Setting(String key, String value, String why) {
    }

    private HBaseSettings() {
    }

    /** Master and region servers; {@code overrides} (the start command's -D arguments) come last and win. */
    public static List<Setting> server(ClusterState state, ClusterPaths paths, Map<String, String> overrides) {
        List<Setting> s = new ArrayList<>();
        s.add(new Setting("hbase.cluster.distributed", "true",
                "separate processes: HMaster start runs only the master, not a local cluster"));
        s.add(new Setting("hbase.rootdir", paths.hbaseRoot().toUri().toString(),
                "data on the local file system, one directory per cluster"));
        // A WAL sync on the local file system reaches the OS (HBase turns the checksum layer's buffering off there,
        // HBASE-11218): it survives a killed region server, not a power loss. HDFS in production.
        s.add(new Setting("hbase.unsafe.stream.capability.enforce", "false",
                "the local file system does not declare hflush/hsync; HBase refuses to write a WAL on it otherwise"));
        s.add(new Setting("hbase.zookeeper.quorum", Loopback.HOST, "the cluster's own ZooKeeper (role zk)"));
        s.add(new Setting("hbase.zookeeper.property.clientPort", Integer.toString(state.port(Role.ZK)), ""));
        s.add(new Setting("zookeeper.znode.parent", ZNODE_PARENT, ""));
        s.add(new Setting("zookeeper.session.timeout", "30000",
                "a region server killed with -9 is declared dead after 30 s (HBase's default is 90 s)"));
        s.add(new Setting("hbase.master.port", Integer.toString(state.port(Role.MASTER)), ""));
        s.add(new Setting("hbase.master.ipc.address", Loopback.HOST, "loopback only"));
        s.add(new Setting("hbase.master.hostname", Loopback.HOST, "the name the master registers under"));
        s.add(new Setting("hbase.regionserver.ipc.address", Loopback.HOST, "loopback only"));
        s.add(new Setting("hbase.unsafe.regionserver.hostname", Loopback.HOST,
                "the name region servers register under (each one's port is given on its command line)"));
        s.add(new Setting("hbase.master.info.port", "-1", "no web UIs"));
        s.add(new Setting("hbase.regionserver.info.port", "-1", "no web UIs"));
        s.add(new Setting("hbase.regionserver.handler.count", "10", "fewer threads on a small machine"));
        s.add(new Setting("hbase.regionserver.metahandler.count", "2", "fewer threads on a small machine"));
        s.add(new Setting("hbase.regionserver.wal.codec",
                "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec",
                "Phoenix: required on every region server for its secondary indexes"));
        s.add(new Setting("phoenix.transactions.enabled", "true",
                "Phoenix: transactional tables; read by the Phoenix code region servers run as well"));
        fastRetries(s);
        overrides.forEach((k, v) -> s.add(new Setting(k, v, "given to start")));
        return s;
    }

    /** A client's hbase-site.xml (sqlline, applications): the JDBC URL names ZooKeeper, the rest is defaults. */
    public static List<Setting> client(Map<String, String> overrides) {
        List<Setting> s = new ArrayList<>();
        s.add(new Setting("phoenix.transactions.enabled", "true",
                "Phoenix reads it on the client; our provider jar on the classpath does the rest"));
        fastRetries(s);
        overrides.forEach((k, v) -> s.add(new Setting(k, v, "given to start")));
        return s;
    }

    /**
     * The HBase client's retry pacing, for every HBase client of the cluster: applications and sqlline, and the
     * region servers' own clients (our observer reads the commit table, Phoenix writes index rows). HBase sleeps
     * pause x {1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, ...} between retries of an operation whose region is
     * not reachable. With HBase's 100 ms a client retries 10-20 s apart by the time a crashed server's regions
     * reopen elsewhere (~10-20 s here), so it kept failing for 4-6 s after they were back (30-minute chaos run); with
     * 10 ms the excess was 0.1-0.9 s over the 2 s target in 4 of 10 region-server crashes (the gap between retries
     * reaches 2 s, and a transaction's operations each wait out their own gap); with 5 ms the gap is at most 1 s.
     * 60 retries (about 50 s) outlast a region server's recovery instead of failing inside it. A dead server is not
     * hammered: HBase's failed-server list answers attempts to it locally for 2 s.
     */
    static void fastRetries(List<Setting> s) {
        s.add(new Setting("hbase.client.pause", "5",
                "retry a moved or recovering region every <= 1 s, not every 10-20 s (HBase's default is 100)"));
        s.add(new Setting("hbase.client.retries.number", "60",
                "with a 5 ms pause, about 50 s of retries: longer than a region server's recovery (default 15)"));
    }
}
