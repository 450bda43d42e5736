package io.phoenixtxn.it.cluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.schema.types.PLong;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 14's done-when, end to end on a real multi-process cluster: {@code bin/phoenix-txn-cluster start} (ZooKeeper,
 * a TM pair, an HMaster and two region servers, each its own JVM), then this JVM as a plain JDBC client on the
 * printed URL ({@code phoenix.txn.tm.mode=remote}: it has no TM of its own). The region servers' own log files show
 * that our observer runs in them (loaded from their classpath for the transactional table, the OMID slot taken
 * there) and that they resolve pending writers themselves, asking the TM servers; a kill -9 of the primary TM
 * hands the cluster to the backup; a kill -9 of a region server loses no committed transaction.
 *
 * <p>The tests share the cluster and run in order: each leaves the table in the state the next one states.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ProcessClusterIT {
    private static final String TABLE = "ACCT";
    /** The region servers' log lines that prove our observer and provider run in that process. */
    private static final String OBSERVER_LOADED = "Loaded coprocessor io.phoenixtxn.phoenix.PhoenixTxnObserver from"
            + " HTD of " + TABLE + " successfully.";
    private static final String SLOT_TAKEN = "phoenix-txn took Phoenix's OMID transaction provider slot";
    private static final String ASKS_TM = "Region server readers ask the TM advertised in ZooKeeper";
    private static final String FORCE_ABORTED = "Force-aborted pending transaction ";
    /** One row in each of the four regions of the table. */
    private static final long[] ROWS = {50, 150, 250, 350};

    @RegisterExtension
    static final ProcessClusterExtension CLUSTER = new ProcessClusterExtension("ProcessClusterIT",
            "--region-servers", "2",
            // a short lease: the kill -9 failover below takes about one lease
            "-Dphoenix.txn.tm.lease.ms=4000",
            // on a loaded machine a TM answer later than the default 500 ms would turn into UNKNOWN, and the reader
            // would force-abort the writer that aReadersRegionServerAsksTheTmAndSparesAnUndecidedWriter spares
            "-Dphoenix.txn.tm.client.status.timeout.ms=5000");

    @Test
    @Order(1)
    void regionServersRunOurObserverFromTheirOwnClasspath() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (ID BIGINT PRIMARY KEY, BAL BIGINT, NOTE VARCHAR)"
                    + " TRANSACTIONAL=true SPLIT ON (100, 200, 300)");
        }
        // Two regions on each region server, whatever the balancer chose.
        List<String> regionServers = List.of("rs1", "rs2");
        try (org.apache.hadoop.hbase.client.Connection hbase = ConnectionFactory.createConnection(hbaseConf());
             Admin admin = hbase.getAdmin();
             RegionLocator locator = hbase.getRegionLocator(TableName.valueOf(TABLE))) {
            List<HRegionLocation> regions = locator.getAllRegionLocations();
            assertEquals(4, regions.size(), regions.toString());
            List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
            for (int i = 0; i < regions.size(); i++) {
                int port = CLUSTER.script().port(regionServers.get(i % 2));
                ServerName target = servers.stream().filter(sn -> sn.getPort() == port).findFirst()
                        .orElseThrow(() -> new AssertionError("no live region server on port " + port + ": " + servers));
                if (!regions.get(i).getServerName().equals(target)) {
                    admin.move(regions.get(i).getRegion().getEncodedNameAsBytes(), target);
                }
            }
        }
        for (String rs : regionServers) {
            Path log = CLUSTER.script().log(rs);
            awaitLogLine(log, OBSERVER_LOADED);
            awaitLogLine(log, SLOT_TAKEN);
            // each region server found the TM servers through ZooKeeper, for its readers' questions
            awaitLogLine(log, ASKS_TM);
        }
        assertTrue(logText(CLUSTER.script().log("master")).lines().noneMatch(l -> l.contains(OBSERVER_LOADED)),
                "no region of the table is served by the master process");
    }

    @Test
    @Order(2)
    void commitsConflictsAndRollbacksOverRegionsOnBothRegionServers() throws Exception {
        try (Connection a = connect(); Connection b = connect(); Statement sa = a.createStatement();
             Statement sb = b.createStatement()) {
            for (long id : ROWS) {
                sa.executeUpdate("UPSERT INTO " + TABLE + " VALUES (" + id + ", 100, 'initial')");
            }
            a.commit();
            assertEquals(400, sum(b), "one transaction, four regions, two region servers");
            b.commit();

            // write-write conflict: both update row 50; the second to commit is aborted (SQL error 523)
            sa.executeUpdate("UPSERT INTO " + TABLE + " (ID, BAL) VALUES (50, 90)");
            sa.executeUpdate("UPSERT INTO " + TABLE + " (ID, BAL) VALUES (150, 110)");
            sb.executeUpdate("UPSERT INTO " + TABLE + " (ID, BAL) VALUES (50, 0)");
            a.commit();
            SQLException conflict = assertThrows(SQLException.class, b::commit);
            assertEquals(523, conflict.getErrorCode(), conflict.toString());

            // rollback leaves nothing behind
            sb.executeUpdate("UPSERT INTO " + TABLE + " (ID, BAL) VALUES (250, 1000000)");
            sb.executeUpdate("UPSERT INTO " + TABLE + " VALUES (999, 1, 'rolled back')");
            b.rollback();
        }
        try (Connection c = connect()) {
            assertEquals(400, sum(c));
            assertEquals(90, balance(c, 50));
            assertEquals(110, balance(c, 150));
            assertNull(note(c, 999));
        }
    }

    /**
     * A writer that began first and is still pending when a later reader meets its cells: the reader's region
     * server asks the TM, which vouches that the writer is undecided (its commit will follow the reader's start), so
     * the reader skips the cells without aborting the writer, and the writer then commits.
     */
    @Test
    @Order(3)
    void aReadersRegionServerAsksTheTmAndSparesAnUndecidedWriter() throws Exception {
        try (Connection writer = connect(); Connection reader = connect(); Statement w = writer.createStatement()) {
            w.executeUpdate("UPSERT INTO " + TABLE + " (ID, NOTE) VALUES (150, 'pending')");
            assertEquals("pending", note(writer, 150)); // the writer reads its own write: its cells are in HBase now
            assertEquals("initial", note(reader, 150), "a pending write is invisible to a later reader");
            writer.commit();
            assertEquals("initial", note(reader, 150), "the reader's snapshot does not move");
            reader.commit();
            assertEquals("pending", note(reader, 150), "the writer committed: the reader did not abort it");
        }
    }

    /**
     * kill -9 of the primary TM while a writer is pending: the backup takes over (a commit succeeds after), and a
     * reader of the new primary meets the orphaned writer's cells; its region server cannot get a promise about a
     * writer of the previous primary, so after a short wait it force-aborts it, in its own process (its log names
     * the writer). The writer's commit then fails, and nothing of it is ever visible.
     */
    @Test
    @Order(4)
    void killingThePrimaryTmFailsOverAndTheRegionServerForceAbortsTheOrphanedWriter() throws Exception {
        String primary = primaryTm();
        String backup = primary.equals("tm1") ? "tm2" : "tm1";
        try (Connection writer = connect(); Statement w = writer.createStatement()) {
            w.executeUpdate("UPSERT INTO " + TABLE + " (ID, NOTE) VALUES (250, 'orphan')");
            assertEquals("orphan", note(writer, 250)); // tentative cells in HBase
            long writerTx = runningTxId(writer);

            String killed = CLUSTER.script().ok("kill", "tm-primary");
            assertTrue(killed.contains(primary + ": killed"), killed);
            awaitCondition(() -> backup.equals(primaryTmQuietly()), "the backup " + backup + " becomes primary");

            try (Connection reader = connect()) {
                assertEquals("initial", note(reader, 250), "the orphaned writer's cells are not visible");
            }
            awaitLogLine(regionServerLogOf(250), FORCE_ABORTED + writerTx);

            SQLException aborted = assertThrows(SQLException.class, writer::commit);
            assertEquals(523, aborted.getErrorCode(), aborted.toString());
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            assertEquals("initial", note(c, 250));
            s.executeUpdate("UPSERT INTO " + TABLE + " (ID, NOTE) VALUES (250, 'after failover')");
            c.commit();
            assertEquals("after failover", note(c, 250));
        }

        String restarted = CLUSTER.script().ok("restart", primary);
        assertTrue(restarted.contains(primary + ": serving"), restarted);
        String status = CLUSTER.script().ok("status");
        assertTrue(statusLine(status, primary).contains("backup"), status);
        assertTrue(statusLine(status, backup).contains("primary"), status);
    }

    @Test
    @Order(5)
    void pauseAndResumeAreVisibleInStatus() throws Exception {
        CLUSTER.script().ok("pause", "tm-backup");
        String paused = CLUSTER.script().ok("status");
        String backup = primaryTm().equals("tm1") ? "tm2" : "tm1";
        assertTrue(statusLine(paused, backup).contains("paused"), paused);
        CLUSTER.script().ok("resume", backup);
        String resumed = CLUSTER.script().ok("status");
        assertTrue(statusLine(resumed, backup).contains(" up "), resumed);
        for (String role : List.of("zk", "tm1", "tm2", "master", "rs1", "rs2")) {
            assertTrue(statusLine(resumed, role).contains(" up "), resumed);
        }
    }

    /**
     * kill -9 of the region server that holds committed rows, then {@code restart}: its WAL is replayed and every
     * committed transaction is there, its commit cells or commit-table entries with it (on the local file system a
     * WAL sync reaches the OS, which outlives the process).
     */
    @Test
    @Order(6)
    void committedTransactionsSurviveAKilledRegionServer() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + TABLE + " (ID, NOTE) VALUES (50, 'before the crash')");
            s.executeUpdate("UPSERT INTO " + TABLE + " (ID, NOTE) VALUES (350, 'before the crash')");
            c.commit();
        }
        String victim = regionServerLogOf(50).getFileName().toString().replace(".log", "");
        CLUSTER.script().ok("kill", victim);
        String restarted = CLUSTER.script().ok("restart", victim);
        assertTrue(restarted.contains(victim + ": serving"), restarted);
        try (Connection c = connect()) {
            assertEquals("before the crash", note(c, 50));
            assertEquals("before the crash", note(c, 350));
            assertEquals("after failover", note(c, 250));
            assertEquals(400, sum(c));
        }
    }

    // ---- helpers ----

    private static Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("phoenix.transactions.enabled", "true");
        props.setProperty("phoenix.txn.tm.mode", "remote"); // the cluster's TM servers, never one of this JVM
        Connection c = DriverManager.getConnection(CLUSTER.jdbcUrl(), props);
        c.setAutoCommit(false);
        return c;
    }

    private static Configuration hbaseConf() throws IOException {
        Configuration conf = HBaseConfiguration.create();
        conf.set(HConstants.ZOOKEEPER_QUORUM, "127.0.0.1");
        conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, CLUSTER.script().port("zk"));
        return conf;
    }

    private static long sum(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(BAL) FROM " + TABLE)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private static long balance(Connection c, long id) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT BAL FROM " + TABLE + " WHERE ID = " + id)) {
            assertTrue(rs.next(), "row " + id);
            return rs.getLong(1);
        }
    }

    private static String note(Connection c, long id) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT NOTE FROM " + TABLE + " WHERE ID = " + id)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static long runningTxId(Connection c) throws SQLException {
        PhoenixTransactionContext ctx = c.unwrap(PhoenixConnection.class).getMutationState()
                .getPhoenixTransactionContext();
        assertTrue(ctx.isTransactionRunning(), "a transaction is running on the connection");
        return ctx.getTransactionId();
    }

    /** The log of the region server that serves the row {@code id} of the table. */
    private static Path regionServerLogOf(long id) throws IOException {
        try (org.apache.hadoop.hbase.client.Connection hbase = ConnectionFactory.createConnection(hbaseConf());
             RegionLocator locator = hbase.getRegionLocator(TableName.valueOf(TABLE))) {
            int port = locator.getRegionLocation(PLong.INSTANCE.toBytes(id), true).getServerName().getPort();
            for (String rs : List.of("rs1", "rs2")) {
                if (CLUSTER.script().port(rs) == port) {
                    return CLUSTER.script().log(rs);
                }
            }
            throw new AssertionError("row " + id + " (" + Bytes.toStringBinary(PLong.INSTANCE.toBytes(id))
                    + ") is on port " + port + ", no region server of the cluster");
        }
    }

    /** The TM the script's status names primary. */
    private static String primaryTm() throws Exception {
        String status = CLUSTER.script().ok("status");
        for (String tm : List.of("tm1", "tm2")) {
            if (statusLine(status, tm).contains(" primary (")) {
                return tm;
            }
        }
        return fail("no TM is primary:\n" + status);
    }

    private static String primaryTmQuietly() {
        try {
            return primaryTm();
        } catch (Throwable e) {
            return null;
        }
    }

    private static String statusLine(String status, String role) {
        return status.lines().filter(l -> l.startsWith(role + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + role + " in:\n" + status));
    }

    private static String logText(Path log) throws IOException {
        return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
    }

    private static void awaitLogLine(Path log, String text) throws Exception {
        awaitCondition(() -> {
            try {
                return logText(log).contains(text);
            } catch (IOException e) {
                return false;
            }
        }, log.getFileName() + " contains '" + text + "'");
    }

    /** Polls a condition on other processes (their logs, their state in ZooKeeper) for at most 60 s. */
    private static void awaitCondition(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting until " + what);
            }
            Thread.sleep(200);
        }
    }
}
