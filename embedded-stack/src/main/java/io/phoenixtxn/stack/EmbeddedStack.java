package io.phoenixtxn.stack;

import io.phoenixtxn.phoenix.ProviderSlot;
import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/**
 * One JVM running everything a transactional Phoenix needs: an HBase minicluster (ZooKeeper, HDFS, master, one
 * region server), the embedded transaction manager, and Phoenix with transactions enabled through phoenix-txn.
 * Used by the launcher, the examples and every integration test (one stack per test JVM).
 */
public final class EmbeddedStack implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedStack.class);

    private final HBaseTestingUtility hbase;
    private final String jdbcUrl;

    private EmbeddedStack(HBaseTestingUtility hbase) {
        this.hbase = hbase;
        this.jdbcUrl = "jdbc:phoenix:localhost:" + hbase.getZkCluster().getClientPort() + ":/hbase";
    }

    /** Starts the stack; {@code overrides} are hbase-site.xml keys applied last. */
    public static EmbeddedStack start(Map<String, String> overrides) throws Exception {
        // Take the OMID slot before Phoenix classes run anywhere in this JVM (clients and region servers alike).
        ProviderSlot.install();
        // Register Phoenix's driver explicitly: DriverManager's service scan happens once per JVM, with whichever
        // class loader touches it first, and was seen (rarely) to miss it in forked test JVMs.
        Class.forName("org.apache.phoenix.jdbc.PhoenixDriver");
        Configuration conf = HBaseConfiguration.create();
        configure(conf);
        overrides.forEach(conf::set);
        HBaseTestingUtility hbase = new HBaseTestingUtility(conf);
        long started = System.nanoTime();
        hbase.startMiniCluster(StartMiniClusterOption.builder().numRegionServers(1).numDataNodes(1).build());
        EmbeddedStack stack = new EmbeddedStack(hbase);
        // The TM starts with the first transaction (embedded), unless --serve adopts a served one first.
        LOG.info("Embedded stack up in {} ms: {}", (System.nanoTime() - started) / 1_000_000, stack.jdbcUrl);
        return stack;
    }

    public static EmbeddedStack start() throws Exception {
        return start(Map.of());
    }

    /** The settings the stack needs; each one says why. */
    static void configure(Configuration conf) {
        conf.setBoolean(io.phoenixtxn.tm.TxnSettings.PHOENIX_TRANSACTIONS_ENABLED.key(), true);
        // auto: the stack's own ZooKeeper never saw a TM server, so its clients use the embedded TM (or the one
        // --serve adopts); another cluster's TM is never reached from here
        conf.set(io.phoenixtxn.tm.discovery.TmMode.KEY, "auto");
        // A small conflict table is plenty for one JVM and keeps the stack's heap small.
        conf.setInt(TmConfig.CONFLICT_ENTRIES, 1 << 20);
        // Phoenix's own minicluster settings: fewer threads, no table sanity checks for its system tables.
        conf.setBoolean("hbase.table.sanity.checks", false);
        conf.setInt(HConstants.REGION_SERVER_HANDLER_COUNT, 10);
        conf.setInt("hbase.regionserver.metahandler.count", 2);
        conf.setInt("dfs.namenode.handler.count", 2);
        conf.setInt("dfs.datanode.handler.count", 2);
        conf.setInt("hbase.hfile.compaction.discharger.interval", 5000);
        conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 5);
        conf.set("hbase.regionserver.wal.codec", "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
        // No web UIs: nothing here serves a browser, and their ports could clash with other stacks.
        conf.setInt("hbase.master.info.port", -1);
        conf.setInt("hbase.regionserver.info.port", -1);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public Connection connect() throws SQLException {
        return connect(new Properties());
    }

    public Connection connect(Properties properties) throws SQLException {
        return DriverManager.getConnection(jdbcUrl, properties);
    }

    public HBaseTestingUtility hbase() {
        return hbase;
    }

    public Configuration configuration() {
        return hbase.getConfiguration();
    }

    public int zooKeeperPort() {
        return hbase.getZkCluster().getClientPort();
    }

    /** The JVM's transaction manager (the one Phoenix connections of this stack use). */
    public TransactionManagerCore transactionManager() {
        return EmbeddedTm.shared(TmConfig.from(configuration()::get));
    }

    @Override
    public void close() throws Exception {
        try {
            hbase.shutdownMiniCluster();
        } finally {
            EmbeddedTm.shutdown();
        }
    }
}
