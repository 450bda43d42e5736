package io.phoenixtxn.it.admin;

import io.phoenixtxn.admin.AdminMain;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code bin/phoenix-txn-admin} ({@link AdminMain}) against the embedded stack: each command on a working cluster,
 * and the one-line errors (exit status 2) when ZooKeeper, HBase or the TM cannot be reached. The TM it reports on
 * is a TM server of its own on the stack's ZooKeeper, under a base path no other test uses (a TM server under the
 * default path would change how every other test's clients find their TM).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AdminCliIT {
    private static final String BASE = "/admin-it";
    private static CuratorFramework zk;
    private static TmHaService tm;
    private static TmEndpoint endpoint;

    @BeforeAll
    static void startTmServer() throws Exception {
        // Only in the default execution: the others run JVMs set up for their own tests.
        assumeTrue(System.getProperty("phoenixtxn.it.tm-failover-jvm") == null
                && System.getProperty("phoenixtxn.it.gc-jvm") == null
                && System.getProperty("phoenixtxn.it.cluster-jvm") == null
                && System.getProperty("phoenixtxn.it.fastpath-regions-jvm") == null);
        Map<String, String> settings = Map.of(HaConfig.ZK_QUORUM, "127.0.0.1:" + SharedStack.get().zooKeeperPort(),
                HaConfig.ZK_PATH, BASE, TmServerConfig.PORT, "0");
        HaConfig ha = HaConfig.from(settings::get);
        zk = ZooKeeperClients.connect(ha);
        tm = TmHaService.start(zk, TmConfig.from(settings::get), TmServerConfig.from(settings::get), ha);
        endpoint = tm.awaitPrimary(60, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopTmServer() {
        if (tm != null) {
            tm.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    void statusAndTransactionsReportThePrimaryAndItsOpenTransactionsOldestFirst() throws Exception {
        TransactionManagerCore core = tm.transactionManager().orElseThrow();
        long older = core.begin();
        long younger = core.begin();
        try {
            Run status = admin("-D" + HaConfig.ZK_PATH + "=" + BASE, "status");
            assertEquals(0, status.exit, status.toString());
            assertTrue(status.out.contains("primary TM         " + endpoint.address()), status.out);
            assertTrue(status.out.contains("lease              held"), status.out);
            assertTrue(status.out.contains("open transactions  2 (oldest began"), status.out);
            assertTrue(status.out.contains("epoch              " + core.epochBase()), status.out);

            Run transactions = admin("-D" + HaConfig.ZK_PATH + "=" + BASE, "transactions");
            assertEquals(0, transactions.exit, transactions.toString());
            assertTrue(transactions.out.startsWith("2 in flight on the TM at " + endpoint.address()),
                    transactions.out);
            int olderAt = transactions.out.indexOf("\n" + older + " ");
            int youngerAt = transactions.out.indexOf("\n" + younger + " ");
            assertTrue(olderAt > 0 && youngerAt > olderAt, "oldest first:\n" + transactions.out);
        } finally {
            core.finished(new long[] {older, younger});
        }
    }

    @Test
    void commitTableShowsALeftOverEntryAndCleanCompletesIt() throws Exception {
        TableName table = TableName.valueOf(SharedStack.uniqueTable("ADMIN_CLEAN"));
        org.apache.hadoop.hbase.client.Connection hbase = SharedStack.get().hbase().getConnection();
        try (Admin admin = hbase.getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(table)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
                            .setMaxVersions(Integer.MAX_VALUE).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build());
        }
        TxnClientConfig config = TxnClientConfig.defaults()
                .withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC).withCleanerIntervalMs(0);
        try (TxnClient client = new TxnClient(hbase, () -> SharedStack.get().transactionManager(), config)) {
            Transaction tx = client.begin();
            try (TransactionalTable t = client.table(table)) {
                t.put(tx, new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
                        Bytes.toBytes("v")));
            }
            ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterCommitPoint(long txId, long commitTs) throws IOException {
                    if (txId == tx.txId()) {
                        throw new IOException("simulated client crash after the commit point");
                    }
                }
            });
            try {
                assertThrows(IOException.class, () -> client.commit(tx));
            } finally {
                ProtocolHooks.install(ProtocolHooks.NONE);
            }
            assertEquals(CommitTable.Entry.State.COMMITTED, client.commitTable().lookup(tx.txId()).state());

            Run show = admin("commit-table");
            assertEquals(0, show.exit, show.toString());
            assertTrue(show.out.contains("committed entries  "), show.out);
            assertTrue(!show.out.contains("committed entries  0"), show.out);
            assertTrue(show.out.contains("oldest entry       transaction "), show.out);

            Run keepsYoung = admin("clean");
            assertEquals(0, keepsYoung.exit, keepsYoung.toString());
            assertEquals(CommitTable.Entry.State.COMMITTED, client.commitTable().lookup(tx.txId()).state(),
                    "the default grace period (" + TxnClientConfig.CLEANER_INTERVAL_MS + ") spares a young entry");

            Run clean = admin("clean", "--older-than-ms", "0");
            assertEquals(0, clean.exit, clean.toString());
            assertTrue(clean.out.startsWith("completed ") && !clean.out.startsWith("completed 0 "), clean.out);
            assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(tx.txId()).state(),
                    "clean completed the crashed client's post-commit and retired its entry");
        }
    }

    @Test
    void verifyIndexComparesTheIndexWithItsTable() throws Exception {
        String table = SharedStack.uniqueTable("ADMIN_VERIFY");
        String index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, W VARCHAR) TRANSACTIONAL=true");
            for (int i = 0; i < 20; i++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + i + ", 'v" + (i % 7) + "', 'w" + i + "')");
            }
            c.commit();
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (W)");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (100, 'late', 'row')");
            c.commit();
        }
        Run verify = admin("verify-index", table, index);
        assertEquals(0, verify.exit, verify.toString());
        assertEquals(index + " equals " + table + ": 21 rows, 3 columns compared at one snapshot\n", verify.out);
        assertTrue(verify.err.contains("verify-index: reading " + table), "progress lines: " + verify.err);

        Run notAnIndex = admin("verify-index", table, "NO_SUCH_INDEX");
        assertEquals(2, notAnIndex.exit, notAnIndex.toString());
        assertTrue(notAnIndex.err.startsWith("phoenix-txn-admin: no index named NO_SUCH_INDEX"), notAnIndex.err);
    }

    @Test
    void unreachableZooKeeperIsOneLineNamingTheQuorumAndTheFix() throws Exception {
        int port = freePort();
        for (String command : List.of("status", "commit-table")) {
            Run run = adminOn("127.0.0.1:" + port, command);
            assertEquals(2, run.exit, run.toString());
            assertOneLine(run.err, "phoenix-txn-admin: ZooKeeper at 127.0.0.1:" + port + " is unreachable",
                    "pass --zk HOST:PORT");
        }
    }

    @Test
    void hbaseNotRunningIsOneLineNamingTheMasterZnode() {
        Run run = admin("-Dzookeeper.znode.parent=/admin-it-no-hbase", "commit-table");
        assertEquals(2, run.exit, run.toString());
        assertOneLine(run.err, "phoenix-txn-admin: HBase is not running: no master is registered at"
                + " /admin-it-no-hbase/master", "start HBase");
    }

    @Test
    void noTmServerIsOneLineSayingHowToStartOne() {
        Run run = admin("-D" + HaConfig.ZK_PATH + "=/admin-it-never", "status");
        assertEquals(2, run.exit, run.toString());
        assertOneLine(run.err, "phoenix-txn-admin: no primary TM is advertised at", "/admin-it-never/tm/primary",
                "start bin/tm-server");
    }

    @Test
    void deadTmIsOneLineNamingItsAddress() throws Exception {
        int port = freePort();
        zk.create().creatingParentsIfNeeded().forPath("/admin-it-dead/tm/primary",
                ("127.0.0.1:" + port + "#1").getBytes(StandardCharsets.UTF_8));
        Run run = admin("-D" + HaConfig.ZK_PATH + "=/admin-it-dead", "transactions");
        assertEquals(2, run.exit, run.toString());
        assertOneLine(run.err, "phoenix-txn-admin: the primary TM advertised at", "is unreachable",
                "Cannot connect to the TM at 127.0.0.1:" + port, "check that the TM server is running");
    }

    @Test
    void badUsageIsOneLine() {
        Run run = admin("verify-index", "ONLY_ONE");
        assertEquals(2, run.exit, run.toString());
        assertOneLine(run.err, "phoenix-txn-admin: verify-index takes 2 arguments");
    }

    private static void assertOneLine(String err, String... fragments) {
        assertEquals(1, err.lines().count(), "one line:\n" + err);
        for (String fragment : fragments) {
            assertTrue(err.contains(fragment), "'" + fragment + "' missing from: " + err);
        }
    }

    private static Run admin(String... args) {
        return adminOn("localhost:" + SharedStack.get().zooKeeperPort(), args);
    }

    private static Run adminOn(String quorum, String... args) {
        List<String> all = new ArrayList<>(List.of("--zk", quorum));
        all.addAll(List.of(args));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = AdminMain.run(all.toArray(new String[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nout:\n" + out + "err:\n" + err;
        }
    }
}
