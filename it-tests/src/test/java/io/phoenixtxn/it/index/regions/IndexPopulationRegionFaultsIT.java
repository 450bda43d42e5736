package io.phoenixtxn.it.index.regions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.phoenixtxn.admin.IndexVerifier;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.index.IndexBuildProgress;
import io.phoenixtxn.it.RegionFaultsStack;
import io.phoenixtxn.it.RegionServerFaults;
import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.TxnSettings;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.phoenix.schema.types.PLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * CREATE INDEX populating on the region servers (design.md sec. 4.4) while the data table's region splits, moves, or
 * its region server crashes in the middle of the population (issue 16). Each case stops the population after its
 * first page (10 rows) with a hook, applies the fault, lets it go on, and checks that the index equals the table and
 * that the population ran on the region servers. Three region servers in the JVM of failsafe execution
 * {@code fastpath-region-its}, which moves, splits and kills.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class IndexPopulationRegionFaultsIT {
    private static final long WAIT_MS = 120_000;
    private static final int ROWS = 300;
    private static final AtomicInteger TABLES = new AtomicInteger();

    private static EmbeddedStack stack;
    private static Properties props;
    private static ServerName serverA;
    private static ServerName serverB;

    @BeforeAll
    static void start() throws Exception {
        stack = RegionFaultsStack.get("IndexPopulationRegionFaultsIT");
        props = new Properties();
        props.setProperty(TxnSettings.INDEX_POPULATION_PAGE_ROWS.key(), "10");
        props.setProperty(TxnSettings.INDEX_POPULATION_ATTEMPTS.key(), "10");
        List<ServerName> spares = RegionFaultsStack.spares();
        serverA = spares.get(0);
        serverB = spares.get(1);
    }

    @AfterEach
    void restoreHooks() {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
    }

    @Test
    @Order(1)
    void aRegionSplitMidPopulationLeavesTheIndexEqualToTheTable() throws Exception {
        String table = loadedTableOn(serverA);
        // The first daughter ends with rows the population's snapshot does not see: its last scan call returns no
        // cells, and the scan must still go on to the second daughter.
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM " + table + " WHERE K >= 190 AND K < 200");
            c.commit();
        }
        buildIndexAround(table, () -> {
            try (Admin admin = stack.hbase().getConnection().getAdmin()) {
                admin.split(TableName.valueOf(table), PLong.INSTANCE.toBytes(200L));
            }
            stack.hbase().waitFor(WAIT_MS, () -> stack.hbase().getMiniHBaseCluster()
                    .getRegions(TableName.valueOf(table)).size() == 2);
            stack.hbase().waitUntilNoRegionsInTransition(WAIT_MS);
        });
    }

    @Test
    @Order(2)
    void aRegionMovedMidPopulationLeavesTheIndexEqualToTheTable() throws Exception {
        String table = loadedTableOn(serverA);
        buildIndexAround(table, () -> moveTo(table, serverB));
    }

    @Test
    @Order(3)
    void aRegionServerCrashMidPopulationLeavesTheIndexEqualToTheTable() throws Exception {
        String table = loadedTableOn(serverA);
        buildIndexAround(table, () -> crash(serverA));
    }

    /** What the test does while the population waits after its first page. */
    private interface Fault {
        void apply() throws Exception;
    }

    private static void buildIndexAround(String table, Fault fault) throws Exception {
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicLong fence = new AtomicLong(-1);
        AtomicLong scannedAtPause = new AtomicLong(-1);
        List<IndexBuildProgress> seen = new ArrayList<>();
        IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterRowsScanned(long f, long rowsSoFar) {
                if (fence.compareAndSet(-1, f)) {
                    scannedAtPause.set(rowsSoFar);
                    seen.add(IndexBuildProgress.running().get(f));
                    paused.countDown();
                    await(resume);
                }
            }
        });
        String index = table + "_IDX";
        CompletableFuture<Void> create = CompletableFuture.runAsync(() -> {
            try (Connection c = connect(); Statement s = c.createStatement()) {
                s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(paused.await(WAIT_MS, TimeUnit.MILLISECONDS), "the population reported its first page");
        // the fault must land in the middle of the population: pages of 10 rows (this class's connection service)
        assertTrue(scannedAtPause.get() < ROWS / 2, "paused after " + scannedAtPause.get() + " of " + ROWS
                + " rows: the page limit of this class's connection service did not apply");
        try {
            fault.apply();
        } finally {
            resume.countDown();
        }
        create.get(WAIT_MS, TimeUnit.MILLISECONDS);

        IndexBuildProgress progress = seen.get(0);
        assertTrue(progress.isPopulatedOnRegionServers(), "the region servers populated the index");
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            long rows = count(c, "SELECT /*+ NO_INDEX */ COUNT(*) FROM " + table);
            assertTrue(progress.getRowsScanned() >= rows, "every row scanned at least once: "
                    + progress.getRowsScanned() + " of " + rows);
            IndexVerifier.Report report = IndexVerifier.verify(c, table, index,
                    new PrintStream(OutputStream.nullOutputStream()));
            assertTrue(report.equal(), report.describe());
            assertEquals(rows, count(c, "SELECT /*+ INDEX(" + table + " " + index + ") */ COUNT(V) FROM " + table));
            c.rollback();
        }
    }

    private static String loadedTableOn(ServerName server) throws Exception {
        String table = "POP_FAULT_" + TABLES.incrementAndGet();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?, ?)")) {
                for (int k = 0; k < ROWS; k++) {
                    p.setLong(1, k);
                    p.setString(2, "v" + k);
                    p.setLong(3, 10L * k);
                    p.executeUpdate();
                }
            }
            c.commit();
        }
        moveTo(table, server);
        return table;
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Moves every region of {@code table} to {@code server}; a move the master dropped is asked for again. */
    private static void moveTo(String table, ServerName server) throws Exception {
        TableName name = TableName.valueOf(table);
        try (Admin admin = stack.hbase().getConnection().getAdmin()) {
            for (int attempt = 1; ; attempt++) {
                stack.hbase().waitUntilNoRegionsInTransition(WAIT_MS);
                for (RegionInfo region : admin.getRegions(name)) {
                    if (regionServer(server).getRegion(region.getEncodedName()) == null) {
                        admin.move(region.getEncodedNameAsBytes(), server);
                    }
                }
                try {
                    stack.hbase().waitFor(WAIT_MS / 4, () -> admin.getRegions(name).stream()
                            .allMatch(r -> regionServer(server).getRegion(r.getEncodedName()) != null));
                    break;
                } catch (AssertionError notThere) {
                    if (attempt == 3) {
                        throw new AssertionError(table + " is not on " + server + " after 3 moves", notThere);
                    }
                }
            }
        }
        stack.hbase().waitUntilNoRegionsInTransition(WAIT_MS);
    }

    private static HRegionServer regionServer(ServerName server) {
        return RegionServerFaults.regionServer(stack.hbase(), server);
    }

    private static void crash(ServerName server) throws Exception {
        RegionServerFaults.crash(stack.hbase(), server, WAIT_MS);
    }

    private static Connection connect() throws SQLException {
        return stack.connect(props);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the test never resumed the population");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

}
