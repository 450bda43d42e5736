package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.coprocessor.GcHorizon;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.it.index.IndexChecks;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.types.PLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ALTER TABLE t SET TRANSACTIONAL=true} on a table written non-transactionally: rows written before it
 * (Phoenix upserts, a null, a delete) are read by transactions that begin after it, and by an index created after
 * it; snapshot isolation holds from then on; a non-transactional writer
 * whose metadata predates the switch is refused (SQL 523) with nothing applied; a transaction that began before the
 * switch cannot write the table; flush and major compaction keep the pre-switch rows. Before the rule, every
 * pre-switch row read as an aborted write (the converted table looked empty) and GC dropped them.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AlterToTransactionalIT {
    /** TxnSettings.ALTER_TO_TRANSACTIONAL: a JVM can opt out of converting live tables. */
    private static final String OPT_OUT = "phoenix.txn.alter.to.transactional";

    private String table;
    private String index;

    @BeforeEach
    void createNonTransactionalTableWithRows() throws Exception {
        table = SharedStack.uniqueTable("ALTERTX");
        index = table + "_V";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            // A long metadata cache period, so that a client of another connection service keeps the old metadata.
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT)"
                    + " UPDATE_CACHE_FREQUENCY=900000");
            c.setAutoCommit(true);
            for (int k = 1; k <= 20; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "', " + (100 + k) + ")");
            }
            s.executeUpdate("UPSERT INTO " + table + " VALUES (3, 'v3-updated', 300)"); // a second version
            s.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (4, NULL)"); // a null: a column delete
            s.executeUpdate("DELETE FROM " + table + " WHERE K = 5"); // HBase delete markers
        }
    }

    private static final Map<Long, String> BEFORE_SWITCH = expectedBeforeSwitch();

    private static Map<Long, String> expectedBeforeSwitch() {
        Map<Long, String> rows = new TreeMap<>();
        for (long k = 1; k <= 20; k++) {
            rows.put(k, "v" + k + "|" + (100 + k));
        }
        rows.put(3L, "v3-updated|300");
        rows.put(4L, "null|104");
        rows.remove(5L);
        return rows;
    }

    @Test
    void aJvmThatOptsOutRefusesTheAlterAndTheTableStaysAsItWas() throws Exception {
        System.setProperty(OPT_OUT, "false");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class,
                    () -> s.execute("ALTER TABLE " + table + " SET TRANSACTIONAL=true"));
            assertEquals(1093, e.getErrorCode(), e.toString()); // Phoenix's CANNOT_ALTER_TABLE_FROM_NON_TXN_TO_TXNL
        } finally {
            System.clearProperty(OPT_OUT);
        }
        try (Table raw = SharedStack.get().hbase().getConnection().getTable(TableName.valueOf(table))) {
            assertEquals(null, raw.getDescriptor().getValue("data.tx.read.pre.existing"));
        }
        assertEquals(BEFORE_SWITCH, plainRows(), "still a non-transactional table with its rows");
    }

    @Test
    void preSwitchRowsAreReadByLaterTransactionsAndSnapshotIsolationHoldsFromThen() throws Exception {
        switchToTransactional();
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(BEFORE_SWITCH, IndexChecks.rows(c, "SELECT /*+ NO_INDEX */ K, V, N FROM " + table));
            c.commit();
            // An index created after the switch is populated at its fence from the pre-switch rows.
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        }
        assertEquals(BEFORE_SWITCH, IndexChecks.assertIndexEqualsTable(table, index, "K, V, N"));
        // A conflict pair: both read row 1 (pre-switch value), both write it; the second commit aborts.
        try (Connection a = SharedStack.connect(); Connection b = SharedStack.connect();
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            assertEquals(101, n(sa, 1));
            assertEquals(101, n(sb, 1));
            sa.executeUpdate("UPSERT INTO " + table + " (K, N) VALUES (1, 102)");
            sb.executeUpdate("UPSERT INTO " + table + " (K, N) VALUES (1, 1000)");
            a.commit();
            assertEquals(1000, n(sb, 1), "b reads its own write over the pre-switch value");
            SQLException e = assertThrows(SQLException.class, b::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(102, n(s, 1));
            s.executeUpdate("DELETE FROM " + table + " WHERE K = 2"); // a pre-switch row deleted transactionally
            s.executeUpdate("UPSERT INTO " + table + " VALUES (3, 'v3-tx', 303)");
            c.commit();
        }
        // A plain HBase delete of a column's newest version (no timestamp: HBase would pick row 3's transactional
        // version) and an HBase increment are refused too.
        try (Table raw = SharedStack.get().hbase().getConnection().getTable(TableName.valueOf(table))) {
            java.io.IOException refused = assertThrows(java.io.IOException.class, () -> raw.delete(
                    new org.apache.hadoop.hbase.client.Delete(key(3)).addColumn(Bytes.toBytes("0"),
                            Bytes.toBytes("V"))));
            assertTrue(String.valueOf(refused).contains("was made transactional"), String.valueOf(refused));
            refused = assertThrows(java.io.IOException.class, () -> raw.increment(
                    new org.apache.hadoop.hbase.client.Increment(key(3)).addColumn(Bytes.toBytes("0"),
                            Bytes.toBytes("COUNTER"), 1)));
            assertTrue(String.valueOf(refused).contains("was made transactional"), String.valueOf(refused));
        }
        Map<Long, String> expected = new TreeMap<>(BEFORE_SWITCH);
        expected.put(1L, "v1|102");
        expected.remove(2L);
        expected.put(3L, "v3-tx|303");
        assertEquals(expected, IndexChecks.assertIndexEqualsTable(table, index, "K, V, N"),
                "the index follows the transactional updates and deletes of pre-switch rows");
    }

    @Test
    void aFastPathWriteKeptBackAtSendCompletesTheSwitchBeforeItIsSent() throws Exception {
        // Review item 8: the first transactional use after the ALTER is a routed auto-commit UPSERT that the
        // provider keeps back and sends as one bwc at commit; it too must complete the switch first.
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + table + " SET TRANSACTIONAL=true");
        }
        try (Admin admin = SharedStack.get().hbase().getConnection().getAdmin()) {
            io.phoenixtxn.client.fastpath.FastPathSwitch.enable(admin, TableName.valueOf(table));
        }
        long fastPathWrites = io.phoenixtxn.phoenix.FastPathRoutingStats.fastPathWrites();
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'fp', 1)"));
        }
        assertEquals(1, io.phoenixtxn.phoenix.FastPathRoutingStats.fastPathWrites() - fastPathWrites,
                "the UPSERT was one bwc");
        try (Table raw = SharedStack.get().hbase().getConnection().getTable(TableName.valueOf(table))) {
            assertTrue(raw.getDescriptor().getValue("phoenix.txn.committed.below") != null,
                    "the switch was completed before the bwc: " + raw.getDescriptor());
        }
        Map<Long, String> expected = new TreeMap<>(BEFORE_SWITCH);
        expected.put(1L, "fp|1");
        assertEquals(expected, tableRows());
    }

    @Test
    void aNonTransactionalWriterWithMetadataFromBeforeTheSwitchIsRefusedAndNothingOfItIsApplied() throws Exception {
        try (Connection stale = SharedStack.connectAsAnotherClient(); Statement s = stale.createStatement()) {
            stale.setAutoCommit(true);
            assertEquals(101, n(s, 1)); // caches the table as non-transactional
            switchToTransactional();
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'stale', -1)"));
            assertEquals(523, errorCode(e), e.toString());
            assertTrue(e.getMessage().contains("was made transactional"), e.getMessage());
            assertNoCellAt(1, "stale");
            assertEquals(BEFORE_SWITCH, tableRows(), "the refused write is nowhere");
            // Once its metadata is refreshed, the same statement writes the table in a transaction.
            stale.unwrap(PhoenixConnection.class).getQueryServices().clearCache();
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'fresh', 1)");
        }
        Map<Long, String> expected = new TreeMap<>(BEFORE_SWITCH);
        expected.put(1L, "fresh|1");
        assertEquals(expected, tableRows());
    }

    @Test
    void aTransactionThatBeganBeforeTheSwitchCannotWriteTheTable() throws Exception {
        String other = SharedStack.uniqueTable("ALTERTX_OTHER");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + other + " (K BIGINT PRIMARY KEY, N BIGINT) TRANSACTIONAL=true");
        }
        try (Connection early = SharedStack.connect(); Statement s = early.createStatement()) {
            early.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + other)) {
                rs.next(); // the transaction has begun
            }
            switchToTransactional();
            SQLException e = assertThrows(SQLException.class, () -> {
                s.executeUpdate("UPSERT INTO " + table + " (K, N) VALUES (6, -6)");
                early.commit();
            });
            assertEquals(523, errorCode(e), e.toString());
            early.rollback();
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(106, n(s, 6), "the early transaction's write is not visible");
        }
    }

    @Test
    void flushAndMajorCompactionKeepThePreSwitchRows() throws Exception {
        switchToTransactional();
        assertTrue(GcHorizon.refreshNow().isKnown(), "GC runs only with a known horizon");
        for (String t : new String[] {table}) {
            TableName name = TableName.valueOf(t);
            try (Admin admin = SharedStack.get().hbase().getConnection().getAdmin()) {
                admin.flush(name);
                java.util.Set<String> before = storeFiles(name);
                assertTrue(!before.isEmpty(), "the pre-switch rows are in files");
                admin.majorCompact(name);
                awaitReplaced(name, before);
            }
        }
        assertEquals(BEFORE_SWITCH, tableRows());
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        }
        assertEquals(BEFORE_SWITCH, IndexChecks.assertIndexEqualsTable(table, index, "K, V, N"));
    }

    /**
     * An index that exists at the switch. Phoenix 5.2.1 marks it TRANSACTIONAL without a TRANSACTION_PROVIDER
     * (MetaDataClient.alterTable's incrementTableSeqNum passes none), which Phoenix's server reads as the provider
     * NOTAVAILABLE: every statement through the index failed with 1092 "Cannot mix transaction providers". The ALTER
     * now puts CatalogProviderObserver on SYSTEM.CATALOG before its catalog write, which adds the provider, so every
     * client (another connection service with a cleared cache included) resolves the index as OMID. The ALTER's
     * connection's next transaction completes the switch of the table and of the index before it begins (both fences
     * recorded before its first statement sends anything), so the statements right after the ALTER commit; they read
     * through the index, and the index equals the table, pre-switch rows included.
     */
    @Test
    void anIndexThatExistsAtTheSwitchGetsItsProviderAndTheAltersConnectionCommitsRightAfter() throws Exception {
        Map<Long, String> expected = new TreeMap<>(BEFORE_SWITCH);
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
            c.setAutoCommit(false);
            s.execute("ALTER TABLE " + table + " SET TRANSACTIONAL=true");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (21, 'v21', 121)");
            for (String t : new String[] {table, index}) {
                assertTrue(descriptor(t).getValue("phoenix.txn.committed.below") != null,
                        t + "'s switch was completed when the transaction after the ALTER began: " + descriptor(t));
            }
            s.executeUpdate("UPSERT INTO " + table + " (K, N) VALUES (1, 1001)");
            String query = "SELECT K, N FROM " + table + " WHERE V = 'v1'";
            try (ResultSet plan = s.executeQuery("EXPLAIN " + query)) {
                StringBuilder text = new StringBuilder();
                while (plan.next()) {
                    text.append(plan.getString(1)).append('\n');
                }
                assertTrue(text.toString().contains(index), "the query reads through the index: " + text);
            }
            try (ResultSet rs = s.executeQuery(query)) {
                assertTrue(rs.next());
                assertEquals(1001, rs.getLong(2), "the transaction reads its own write through the index");
            }
            c.commit(); // before, the first commit after the switch aborted with 523 (it began before the fences)
            expected.put(21L, "v21|121");
            expected.put(1L, "v1|1001");
        }
        try (Connection other = SharedStack.connectAsAnotherClient()) {
            other.unwrap(PhoenixConnection.class).getQueryServices().clearCache();
            for (String t : new String[] {table, index}) {
                org.apache.phoenix.schema.PTable resolved = org.apache.phoenix.util.PhoenixRuntime.getTable(other, t);
                assertTrue(resolved.isTransactional(), t);
                assertEquals(org.apache.phoenix.transaction.TransactionFactory.Provider.OMID,
                        resolved.getTransactionProvider(), t + " names its provider in the catalog");
            }
            other.setAutoCommit(false);
            try (Statement s = other.createStatement();
                 ResultSet rs = s.executeQuery("SELECT K FROM " + table + " WHERE V = 'v2'")) {
                assertTrue(rs.next(), "another client reads through the index (no 1092)");
                assertEquals(2, rs.getLong(1));
            }
            other.commit();
        }
        assertEquals(expected, IndexChecks.assertIndexEqualsTable(table, index, "K, V, N"));
    }

    /**
     * The ALTER's connection's next transaction completes the switch even when it begins on another table, before
     * anything resolved the converted one again (Phoenix's ALTER dropped it, with its index, from the metadata cache):
     * the tables to complete are read from the catalog. Also under auto-commit, where the transaction begins lazily.
     */
    @Test
    void theNextTransactionOfTheAltersConnectionBeginsAfterTheFencesWhateverItReadsFirst() throws Exception {
        String other = SharedStack.uniqueTable("ALTERTX_FIRST");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + other + " (K BIGINT PRIMARY KEY, N BIGINT) TRANSACTIONAL=true");
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
            c.setAutoCommit(false);
            s.execute("ALTER TABLE " + table + " SET TRANSACTIONAL=true");
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + other)) { // the transaction begins here
                assertTrue(rs.next());
            }
            s.executeUpdate("UPSERT INTO " + table + " VALUES (22, 'v22', 122)");
            c.commit();
        }
        String second = SharedStack.uniqueTable("ALTERTX_AUTO");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("CREATE TABLE " + second + " (K BIGINT PRIMARY KEY, N BIGINT)");
            s.executeUpdate("UPSERT INTO " + second + " VALUES (1, 1)");
            s.execute("ALTER TABLE " + second + " SET TRANSACTIONAL=true");
            assertEquals(1, s.executeUpdate("UPSERT INTO " + second + " VALUES (2, 2)"), "no 523 under auto-commit");
            try (ResultSet rs = s.executeQuery("SELECT SUM(N) FROM " + second)) {
                assertTrue(rs.next());
                assertEquals(3, rs.getLong(1));
            }
        }
        Map<Long, String> expected = new TreeMap<>(BEFORE_SWITCH);
        expected.put(22L, "v22|122");
        assertEquals(expected, IndexChecks.assertIndexEqualsTable(table, index, "K, V, N"));
    }

    private static org.apache.hadoop.hbase.client.TableDescriptor descriptor(String name) throws java.io.IOException {
        try (Admin admin = SharedStack.get().hbase().getConnection().getAdmin()) {
            return admin.getDescriptor(TableName.valueOf(name));
        }
    }

    private Map<Long, String> plainRows() throws SQLException {
        try (Connection c = SharedStack.connect()) {
            return IndexChecks.rows(c, "SELECT /*+ NO_INDEX */ K, V, N FROM " + table);
        }
    }

    private Map<Long, String> tableRows() throws SQLException {
        try (Connection c = SharedStack.connect()) {
            c.setAutoCommit(false);
            Map<Long, String> rows = IndexChecks.rows(c, "SELECT /*+ NO_INDEX */ K, V, N FROM " + table);
            c.commit();
            return rows;
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    private void switchToTransactional() throws SQLException {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + table + " SET TRANSACTIONAL=true");
            // The first transactional use completes the switch: it waits until every region of the table filters
            // snapshots (Phoenix's ALTER returns before HBase reopened them) and draws the table's write fence.
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT /*+ NO_INDEX */ COUNT(*) FROM " + table)) {
                assertTrue(rs.next());
                assertEquals(BEFORE_SWITCH.size(), rs.getLong(1), "every pre-switch row is read at once");
            }
            c.commit();
        }
        try (Table raw = SharedStack.get().hbase().getConnection().getTable(TableName.valueOf(table))) {
            org.apache.hadoop.hbase.client.TableDescriptor d = raw.getDescriptor();
            assertEquals("true", d.getValue("data.tx.read.pre.existing"), "Phoenix marks the table converted: " + d);
            assertTrue(d.getValue("phoenix.txn.committed.below") != null, "the switch's fence is recorded: " + d);
            // A raw HBase write of a plain client after the switch is refused too (a Put at the server's time).
            java.io.IOException refused = assertThrows(java.io.IOException.class, () -> raw.put(new Put(key(7))
                    .addColumn(Bytes.toBytes("0"), Bytes.toBytes("raw"), Bytes.toBytes("x"))));
            assertTrue(String.valueOf(refused).contains("was made transactional"), String.valueOf(refused));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private long n(Statement s, long k) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT /*+ NO_INDEX */ N FROM " + table + " WHERE K = " + k)) {
            assertTrue(rs.next(), "row " + k);
            return rs.getLong(1);
        }
    }

    /**
     * The SQL error code, also where Phoenix wraps it: a refused non-transactional write reaches the application as
     * Phoenix's CommitException (code 0) whose cause is the region server's SQL error.
     */
    static int errorCode(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException && ((SQLException) t).getErrorCode() != 0) {
                return ((SQLException) t).getErrorCode();
            }
        }
        return e.getErrorCode();
    }

    private static byte[] key(long k) {
        return PLong.INSTANCE.toBytes(k);
    }

    /** No cell of the table's row holds {@code value} (raw scan, every version). */
    private void assertNoCellAt(long k, String value) throws Exception {
        try (Table raw = SharedStack.get().hbase().getConnection().getTable(TableName.valueOf(table))) {
            Result r = raw.get(new org.apache.hadoop.hbase.client.Get(key(k)).readAllVersions());
            for (org.apache.hadoop.hbase.Cell cell : r.rawCells()) {
                assertTrue(!Bytes.toString(org.apache.hadoop.hbase.CellUtil.cloneValue(cell)).contains(value),
                        "a refused write left " + cell);
            }
        }
    }

    private static java.util.Set<String> storeFiles(TableName name) {
        java.util.Set<String> files = new java.util.HashSet<>();
        for (HRegion region : SharedStack.get().hbase().getMiniHBaseCluster().getRegions(name)) {
            for (org.apache.hadoop.hbase.regionserver.HStore store : region.getStores()) {
                store.getStorefiles().forEach(f -> files.add(f.getPath().toString()));
            }
        }
        return files;
    }

    /** Waits until the major compaction replaced every file it started from (GC rewrote them) and stopped. */
    private static void awaitReplaced(TableName name, java.util.Set<String> before) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            java.util.Set<String> now = storeFiles(name);
            boolean replaced = java.util.Collections.disjoint(now, before);
            boolean idle = SharedStack.get().hbase().getMiniHBaseCluster().getRegions(name).stream()
                    .allMatch(r -> r.getCompactionState() == org.apache.hadoop.hbase.client.CompactionState.NONE);
            if (replaced && idle) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "timed out waiting for the major compaction of " + name);
            Thread.sleep(50);
        }
    }
}
