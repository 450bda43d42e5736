package io.phoenixtxn.it.failover;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.WriteSetHashing;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Online CREATE INDEX on a transactional table while the TM fails over (a primary/backup pair on the minicluster's
 * ZooKeeper, the primary crashed by closing its ZooKeeper session): the fence handed out by the old primary is
 * persisted and the new primary enforces it (its low-water mark is above the fence, so every transaction that
 * began before the fence is refused); the population finishes at the fence, its snapshot reads resolving versions
 * through the new primary; the index equals the table value by value; transactions of the new primary maintain it.
 *
 * <p>Runs in a JVM of its own (failsafe execution {@code tm-failover-its}): it adopts this JVM's TM.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class IndexFenceFailoverIT {
    /** Set by the {@code tm-failover-its} failsafe execution, the only JVM this test may adopt the TM of. */
    static final String OWN_JVM_PROPERTY = "phoenixtxn.it.tm-failover-jvm";
    private static final int ROWS = 200;
    private static final AtomicInteger TABLES = new AtomicInteger();

    private static HaPairStack pair;

    @BeforeAll
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    static void startPair() throws Exception {
        assumeTrue(Boolean.getBoolean(OWN_JVM_PROPERTY), "IndexFenceFailoverIT adopts the JVM's TM and runs only in"
                + " its own JVM (failsafe execution tm-failover-its, which sets -D" + OWN_JVM_PROPERTY + "=true)");
        pair = HaPairStack.start();
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void stopPair() throws Exception {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
        ProtocolHooks.install(ProtocolHooks.NONE);
        if (pair != null) {
            pair.close();
        }
    }

    /**
     * A writer begins before the index exists; CREATE INDEX takes its fence on the primary, which crashes right
     * then (IndexBuildHooks.afterFence); the population runs after the backup took over.
     */
    @Test
    void failoverBetweenFenceAndPopulationDoesNotLoseTheFence() throws Exception {
        String table = uniqueTable("FENCE_FO");
        String index = table + "_IDX";
        createAndFill(table);
        long tableId = WriteSetHashing.tableId(table.getBytes(StandardCharsets.UTF_8));

        Map<Long, AbortReason> tmAborts = new ConcurrentHashMap<>();
        AtomicReference<Long> fenceSeen = new AtomicReference<>();
        AtomicReference<HaPairStack.Failover> failover = new AtomicReference<>();
        AtomicReference<Throwable> hookFailure = new AtomicReference<>();
        AtomicReference<Boolean> populationCommitted = new AtomicReference<>();
        ProtocolHooks previousProtocol = ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmAbort(long txId, AbortReason reason) {
                tmAborts.put(txId, reason);
            }
        });
        try (Connection writer = connect(); Statement w = writer.createStatement()) {
            writer.setAutoCommit(false);
            HaPairStack.Member firstPrimary = pair.primary();
            w.executeUpdate("UPSERT INTO " + table + " VALUES (1000, 'new', 1000)");
            w.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (5, 'changed')");
            long writerTx = runningTxId(writer);

            IndexBuildHooks previousBuild = IndexBuildHooks.install(new IndexBuildHooks() {
                @Override
                public void afterFence(String physicalTable, long fence) {
                    if (!physicalTable.equals(table) || !fenceSeen.compareAndSet(null, fence)) {
                        return;
                    }
                    try {
                        failover.set(pair.crashPrimary());
                    } catch (Exception | Error e) {
                        hookFailure.set(e);
                        throw new IllegalStateException("failover in afterFence failed", e);
                    }
                }

                @Override
                public void afterPopulationCommit(long fence, boolean committed) {
                    if (Long.valueOf(fence).equals(fenceSeen.get())) {
                        populationCommitted.set(committed);
                    }
                }
            });
            try (Connection ddl = connect(); Statement s = ddl.createStatement()) {
                s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
            } finally {
                IndexBuildHooks.install(previousBuild);
            }
            assertNull(hookFailure.get(), () -> "failover in the hook: " + hookFailure.get());
            long fence = assertNotNullAndGet(fenceSeen, "CREATE INDEX took a fence on " + table);
            HaPairStack.Failover f = assertNotNullAndGet(failover, "the primary was crashed after the fence");
            assertEquals(firstPrimary, f.crashed(), "the TM that handed out the fence crashed");
            assertEquals(Boolean.TRUE, populationCommitted.get(), "the population finished after the failover");
            System.out.printf("failover after the fence: %s -> %s in %d ms (lease %d ms)%n", f.crashed(),
                    f.newPrimary(), f.tookMs(), HaPairStack.LEASE_MS);

            // The fence is not lost: persisted before it was returned, loaded by the new primary, and subsumed by
            // its low-water mark (every transaction that began before the fence is below it).
            assertTrue(writerTx < fence, "the writer began before the fence");
            assertTrue(f.oldEpochBase() < writerTx, "the writer began on the crashed primary");
            assertEquals(fence, pair.persistedFences().get(tableId), "fence of " + table + " in ZooKeeper");
            assertEquals(f.newPrimary(), pair.primary(), "the backup is primary");
            assertTrue(f.newCore().epochBase() >= fence, "the new primary's epoch starts above the fence");
            assertTrue(f.newCore().lowWaterMark() >= fence, "the new primary refuses transactions begun before"
                    + " the fence: low-water mark " + f.newCore().lowWaterMark() + " < fence " + fence);

            // The pre-fence writer cannot commit: 523, saying why (the TM failed over since it began). Phoenix does
            // not resubmit it: this JVM's metadata cache already holds the index, so it sees no index "added".
            SQLException e = assertThrows(SQLException.class, writer::commit, "pre-fence writer commits");
            assertEquals(523, e.getErrorCode(), e::toString);
            assertEquals("42900", e.getSQLState(), e::toString);
            assertTrue(e.getMessage().contains("Transaction " + writerTx + " aborted: "
                    + AbortReason.BELOW_LOW_WATER_MARK.explanation()), e.getMessage());
            assertEquals(Map.of(writerTx, AbortReason.BELOW_LOW_WATER_MARK), tmAborts,
                    "the new primary refused the writer once, and no resubmitted transaction ran");
            writer.rollback();
        } finally {
            ProtocolHooks.install(previousProtocol);
        }

        Map<Long, String> rows = assertIndexEqualsTable(table, index);
        assertEquals(ROWS, rows.size(), "the aborted writer's new row is absent");
        assertEquals("v5|5", rows.get(5L), "the aborted writer's update is absent");

        // A transaction of the new primary maintains the index: an indexed value changes, a row comes and goes.
        long afterTx;
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (5, 'after-failover')");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1001, 'after-failover', 1001)");
            s.executeUpdate("DELETE FROM " + table + " WHERE K = 7");
            afterTx = runningTxId(c);
            c.commit();
        }
        assertTrue(afterTx > pair.primaryCore().epochBase(), "served by the new primary");
        rows = assertIndexEqualsTable(table, index);
        assertEquals("after-failover|5", rows.get(5L));
        assertEquals("after-failover|1001", rows.get(1001L));
        assertFalse(rows.containsKey(7L));
        assertEquals(Map.of(5L, "after-failover|5", 1001L, "after-failover|1001"),
                viaIndex(table, index, "after-failover"), "point query through the index");
        assertEquals(Map.of(), viaIndex(table, index, "v5"), "the old index row of K=5 is gone");
        assertEquals(Map.of(), viaIndex(table, index, "v7"), "the index row of the deleted K=7 is gone");
    }

    /**
     * The primary crashes while the population is scanning. Phoenix runs the population of a transactional table's
     * index as a server-side UPSERT SELECT (its scan and index writes happen inside the region server), so the
     * failover is landed there: when the population's reader meets the first pending version of a pre-fence writer
     * (ProtocolHooks.onPendingVersion on the region server), the primary crashes and the hook waits for the backup.
     * The rest of the snapshot is read after the failover: the writer's pending versions are settled with the new
     * primary (an older epoch's transaction is UNKNOWN to it: wait, then force-abort, as Omid LL), and rows whose only
     * commit record is the commit table (a client that died after its commit point) are resolved through it.
     */
    @Test
    void failoverWhileThePopulationScansLetsItFinishCorrectly() throws Exception {
        String table = uniqueTable("SCAN_FO");
        String index = table + "_IDX";
        createAndFill(table);
        long tableId = WriteSetHashing.tableId(table.getBytes(StandardCharsets.UTF_8));

        // Rows 150..159 committed by a client that died right after its commit point: no commit cells, only the
        // commit-table entry says they committed. Nothing reads them before the population (after the failover).
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (int k = 150; k < 160; k++) {
                s.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (" + k + ", 'crashed" + k + "')");
            }
            long crashedTx = runningTxId(c);
            ProtocolHooks previous = ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterCommitPoint(long txId, long commitTs) throws IOException {
                    if (txId == crashedTx) {
                        throw new IOException("simulated client crash after the commit point");
                    }
                }
            });
            try {
                SQLException e = assertThrows(SQLException.class, c::commit);
                assertTrue(e.getMessage().contains("simulated client crash"), e::toString);
            } finally {
                ProtocolHooks.install(previous);
            }
        }

        Map<Long, AbortReason> tmAborts = new ConcurrentHashMap<>();
        AtomicReference<Long> fenceSeen = new AtomicReference<>();
        AtomicReference<Long> writerTxRef = new AtomicReference<>(-1L);
        AtomicBoolean crashTriggered = new AtomicBoolean();
        AtomicBoolean failedOver = new AtomicBoolean();
        AtomicReference<HaPairStack.Failover> failover = new AtomicReference<>();
        AtomicReference<Throwable> hookFailure = new AtomicReference<>();
        AtomicReference<Boolean> populationCommitted = new AtomicReference<>();
        List<Boolean> resolvedAfterFailover = new CopyOnWriteArrayList<>();
        List<Boolean> invalidatedAfterFailover = new CopyOnWriteArrayList<>();
        ProtocolHooks previousProtocol = ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmAbort(long txId, AbortReason reason) {
                tmAborts.put(txId, reason);
            }

            /** On the region server, inside the population's scan (the only reader after the fence). */
            @Override
            public void onPendingVersion(long writerTxId) {
                if (writerTxId != writerTxRef.get() || fenceSeen.get() == null) {
                    return;
                }
                if (crashTriggered.compareAndSet(false, true)) {
                    try {
                        failover.set(pair.crashPrimary());
                        failedOver.set(true);
                    } catch (Exception | Error e) {
                        hookFailure.set(e);
                    }
                }
                resolvedAfterFailover.add(failedOver.get()); // this version is resolved after the hook returns
            }

            @Override
            public void beforeInvalidate(long writerTxId) {
                if (writerTxId == writerTxRef.get()) {
                    invalidatedAfterFailover.add(failedOver.get());
                }
            }
        });
        try (Connection writer = connect(); Statement w = writer.createStatement()) {
            // A writer that began before the fence, with tentative (pending) cells in HBase: reading in its
            // transaction makes Phoenix send its uncommitted writes first. Only its own rows are read here.
            writer.setAutoCommit(false);
            for (int k = 100; k < 110; k++) {
                w.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (" + k + ", 'pending" + k + "')");
            }
            w.executeUpdate("UPSERT INTO " + table + " VALUES (2000, 'pending-new', 2000)");
            try (ResultSet rs = w.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE K >= 100 AND K < 110"
                    + " AND V LIKE 'pending%'")) {
                assertTrue(rs.next());
                assertEquals(10, rs.getInt(1), "the writer reads its own uncommitted writes");
            }
            long writerTx = runningTxId(writer);
            writerTxRef.set(writerTx);
            HaPairStack.Member firstPrimary = pair.primary();

            IndexBuildHooks previousBuild = IndexBuildHooks.install(new IndexBuildHooks() {
                @Override
                public void afterFence(String physicalTable, long fence) {
                    if (physicalTable.equals(table)) {
                        fenceSeen.compareAndSet(null, fence);
                    }
                }

                @Override
                public void afterPopulationCommit(long fence, boolean committed) {
                    if (Long.valueOf(fence).equals(fenceSeen.get())) {
                        populationCommitted.set(committed);
                    }
                }
            });
            try (Connection ddl = connect(); Statement s = ddl.createStatement()) {
                s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
            } finally {
                IndexBuildHooks.install(previousBuild);
            }
            assertNull(hookFailure.get(), () -> "failover in the hook: " + hookFailure.get());
            long fence = assertNotNullAndGet(fenceSeen, "CREATE INDEX took a fence on " + table);
            HaPairStack.Failover f = assertNotNullAndGet(failover,
                    "the population met the pre-fence writer's pending version and the primary crashed there");
            assertEquals(firstPrimary, f.crashed());
            assertEquals(Boolean.TRUE, populationCommitted.get(), "the population finished after the failover");
            System.out.printf("failover mid-scan (at the population's first pending version): %s -> %s in %d ms"
                    + " (lease %d ms)%n", f.crashed(), f.newPrimary(), f.tookMs(), HaPairStack.LEASE_MS);

            assertTrue(writerTx < fence, "the writer began before the fence");
            assertEquals(fence, pair.persistedFences().get(tableId), "fence of " + table + " in ZooKeeper");
            assertTrue(f.newCore().lowWaterMark() >= fence, "the new primary refuses pre-fence transactions");
            // Every pending version of the writer was resolved after the failover, and the new primary's answer
            // (UNKNOWN: an older epoch's transaction) led to the force-abort.
            assertFalse(resolvedAfterFailover.contains(Boolean.FALSE), resolvedAfterFailover::toString);
            assertFalse(invalidatedAfterFailover.isEmpty(), "the population's reader force-aborted the writer");
            assertFalse(invalidatedAfterFailover.contains(Boolean.FALSE), invalidatedAfterFailover::toString);

            SQLException e = assertThrows(SQLException.class, writer::commit, "pre-fence writer commits");
            assertEquals(523, e.getErrorCode(), e::toString);
            assertTrue(e.getMessage().contains("Transaction " + writerTx + " aborted: "
                    + AbortReason.BELOW_LOW_WATER_MARK.explanation()), e.getMessage());
            assertEquals(Map.of(writerTx, AbortReason.BELOW_LOW_WATER_MARK), tmAborts);
            writer.rollback();
        } finally {
            ProtocolHooks.install(previousProtocol);
        }

        Map<Long, String> rows = assertIndexEqualsTable(table, index);
        assertEquals(ROWS, rows.size(), "the aborted writer's new row is absent");
        for (long k = 100; k < 110; k++) {
            assertEquals("v" + k + "|" + k, rows.get(k), "the force-aborted writer's update is absent");
        }
        for (long k = 150; k < 160; k++) {
            assertEquals("crashed" + k + "|" + k, rows.get(k), "committed through the commit table only");
        }
        assertEquals(Map.of(155L, "crashed155|155"), viaIndex(table, index, "crashed155"));

        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (105, 'after-failover')");
            c.commit();
        }
        rows = assertIndexEqualsTable(table, index);
        assertEquals("after-failover|105", rows.get(105L));
        assertEquals(Map.of(105L, "after-failover|105"), viaIndex(table, index, "after-failover"));
        assertEquals(Map.of(), viaIndex(table, index, "v105"), "the old index row of K=105 is gone");
    }

    /**
     * A new primary issues timestamps from its predecessor's reservation, ahead of the wall clock, up to 1,052 per
     * millisecond, so CREATE INDEX's DDL transaction (whose millisecond stamps the index's catalog rows), its fence,
     * and a writer that begins after the fence share one millisecond, while Phoenix resolves a transaction's
     * metadata at the millisecond of its start. The writer, another client, must still resolve the index and
     * maintain it. (In the chaos run of 2026-11-23 such crowding made a query right after CREATE INDEX plan without
     * the index: its ACTIVE state lies in a later millisecond than the query's, while writers maintain an index in
     * every state. Checks here run in a later millisecond.)
     */
    @Test
    void writersAfterTheFenceMaintainTheIndexWhileTheNewPrimaryRunsAheadOfTheClock() throws Exception {
        String table = uniqueTable("AHEAD");
        String index = table + "_IDX";
        createAndFill(table);
        // The primary reserves a minute ahead, so its successor starts about a minute ahead of the wall clock.
        pair.primaryCore().oracle().extendIfBelow(60_000L * TimestampLayout.UNITS_PER_MILLI);
        pair.crashPrimary();

        AtomicReference<Long> fenceSeen = new AtomicReference<>();
        IndexBuildHooks previousBuild = IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterFence(String physicalTable, long fence) {
                if (physicalTable.equals(table)) {
                    fenceSeen.compareAndSet(null, fence);
                }
            }
        });
        try (Connection ddl = connect(); Statement s = ddl.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        } finally {
            IndexBuildHooks.install(previousBuild);
        }
        long fence = assertNotNullAndGet(fenceSeen, "CREATE INDEX took a fence on " + table);
        assertTrue(TimestampLayout.millisOf(fence) > System.currentTimeMillis() + 10_000,
                "the scenario needs a primary ahead of the wall clock: fence "
                        + TimestampLayout.describe(fence));

        // The writer is another client (its own connection service, as in another JVM): its metadata comes from the
        // server, resolved at its start's millisecond, not from the cache the CREATE INDEX statement updated.
        long writerTx;
        try (Connection c = connectAsAnotherClient(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + table + " VALUES (5000, 'ahead', 5000)");
            s.executeUpdate("UPSERT INTO " + table + " (K, V) VALUES (3, 'ahead3')");
            writerTx = runningTxId(c);
            c.commit();
        }
        assertTrue(writerTx > fence, "the writer began after the fence");

        // Queries plan on the index once its ACTIVE state lies below their millisecond (writers maintain it in every
        // state): the checks run in a later millisecond.
        advanceToTheNextMillisecond();
        Map<Long, String> rows = assertIndexEqualsTable(table, index);
        assertEquals("ahead|5000", rows.get(5000L));
        assertEquals(Map.of(3L, "ahead3|3"), viaIndex(table, index, "ahead3"), "the writer's update is in the index");
        assertEquals(Map.of(), viaIndex(table, index, "v3"), "and its old index row is gone");
    }

    private static Connection connect() throws SQLException {
        return pair.connect(new Properties());
    }

    /** Begins (and ends) transactions on the primary until its timestamps reach a new millisecond. */
    private static void advanceToTheNextMillisecond() throws Exception {
        TransactionManagerCore core = pair.primaryCore();
        long first = core.begin();
        core.finished(new long[] {first});
        for (long ts = first; TimestampLayout.millisOf(ts) == TimestampLayout.millisOf(first); ) {
            ts = core.begin();
            core.finished(new long[] {ts});
        }
    }

    /** A connection through a second Phoenix connection service (the URL names the quorum differently). */
    private static Connection connectAsAnotherClient() throws SQLException {
        Connection c = java.sql.DriverManager.getConnection(
                pair.stack().jdbcUrl().replace("localhost", "127.0.0.1"), new Properties());
        try (Connection usual = connect()) {
            if (c.unwrap(PhoenixConnection.class).getQueryServices()
                    == usual.unwrap(PhoenixConnection.class).getQueryServices()) {
                c.close();
                throw new IllegalStateException("Phoenix keyed both URLs to one connection service");
            }
        }
        return c;
    }

    private static String uniqueTable(String prefix) {
        return prefix + "_" + TABLES.incrementAndGet() + "_" + (System.nanoTime() % 100000);
    }

    private static void createAndFill(String table) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            c.setAutoCommit(false);
            for (int k = 0; k < ROWS; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "', " + k + ")");
            }
            c.commit();
        }
    }

    /** The id of the transaction running on {@code c} (Phoenix begins it with the first statement on the table). */
    private static long runningTxId(Connection c) throws SQLException {
        PhoenixTransactionContext ctx = c.unwrap(PhoenixConnection.class).getMutationState()
                .getPhoenixTransactionContext();
        assertTrue(ctx.isTransactionRunning(), "a transaction is running on the connection");
        return ctx.getTransactionId();
    }

    private static <T> T assertNotNullAndGet(AtomicReference<T> ref, String what) {
        T value = ref.get();
        assertNotNull(value, what);
        return value;
    }

    /**
     * The index equals the table, row by row and value by value: a query forced through the index returns what a
     * full scan of the table returns, the plan really reads the index, and the index holds no extra rows.
     */
    private static Map<Long, String> assertIndexEqualsTable(String table, String index) throws SQLException {
        try (Connection c = connect()) {
            Map<Long, String> fromTable = rows(c, "SELECT /*+ NO_INDEX */ K, V, N FROM " + table);
            String hinted = "SELECT /*+ INDEX(" + table + " " + index + ") */ K, V, N FROM " + table;
            Map<Long, String> fromIndex = rows(c, hinted);
            assertEquals(fromTable, fromIndex, "index content differs from the table");
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + index)) {
                assertTrue(rs.next());
                assertEquals(fromTable.size(), rs.getInt(1), "the index holds no stale rows");
            }
            try (Statement s = c.createStatement(); ResultSet plan = s.executeQuery("EXPLAIN " + hinted)) {
                StringBuilder text = new StringBuilder();
                while (plan.next()) {
                    text.append(plan.getString(1)).append('\n');
                }
                assertTrue(text.toString().contains(index), "the hinted query reads the index:\n" + text);
            }
            return fromTable;
        }
    }

    /** Rows with V = {@code v}, through the index (a point lookup on the indexed column). */
    private static Map<Long, String> viaIndex(String table, String index, String v) throws SQLException {
        try (Connection c = connect(); PreparedStatement p = c.prepareStatement("SELECT /*+ INDEX(" + table + " "
                + index + ") */ K, V, N FROM " + table + " WHERE V = ?")) {
            p.setString(1, v);
            return rows(p);
        }
    }

    private static Map<Long, String> rows(Connection c, String sql) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            return rows(p);
        }
    }

    private static Map<Long, String> rows(PreparedStatement p) throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getString(2) + "|" + rs.getObject(3));
            }
        }
        return rows;
    }
}
