package io.phoenixtxn.it.fastpath;

import io.phoenixtxn.client.fastpath.FastPathAbortedException.Reason;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.it.index.IndexChecks;
import io.phoenixtxn.phoenix.FastPathRoutingStats;
import io.phoenixtxn.phoenix.PhoenixFastPath;
import io.phoenixtxn.phoenix.ProvisionalClock;
import io.phoenixtxn.phoenix.RoutingHooks;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.util.PhoenixRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Phoenix statements routed onto the fast path by the provider (design.md sec. 4.11, Phoenix mapping), applications
 * changing nothing: an auto-commit single-row UPSERT VALUES or DELETE by primary key of a fast-path table without
 * index is one bwc and never begins at the TM; everything else keeps the regular path, begun lazily; a fast-path
 * abort is retried as a regular transaction; a FENCED refusal (an index being created) is Phoenix's 523, whose retry
 * maintains the new index.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PhoenixFastPathRoutingIT {

    @AfterEach
    void restoreHooks() {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
        RoutingHooks.install(RoutingHooks.NONE);
        ProvisionalClock.install(null);
    }

    /** A transactional table (K BIGINT key, V VARCHAR), its fast path on or off. */
    private static String table(String prefix, boolean fastPath, String extraOptions) throws Exception {
        String table = SharedStack.uniqueTable(prefix);
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true"
                    + extraOptions);
            if (fastPath) {
                PhoenixFastPath.enable(c, table);
            }
        }
        return table;
    }

    private static Connection autoCommit() throws SQLException {
        Connection c = SharedStack.connect();
        c.setAutoCommit(true);
        return c;
    }

    private record Counts(long tmBegins, long fastPathWrites, long withoutTm, long tentative, long fenced) {
        static Counts now() {
            return new Counts(FastPathRoutingStats.tmBegins(), FastPathRoutingStats.fastPathWrites(),
                    FastPathRoutingStats.endedWithoutTm(), FastPathRoutingStats.aborts(Reason.TENTATIVE_VERSION),
                    FastPathRoutingStats.aborts(Reason.FENCED));
        }

        Counts since(Counts before) {
            return new Counts(tmBegins - before.tmBegins, fastPathWrites - before.fastPathWrites,
                    withoutTm - before.withoutTm, tentative - before.tentative, fenced - before.fenced);
        }
    }

    @Test
    void autoCommitSingleRowUpsertAndDeleteOfAFastPathTableAreBwcWithoutATmBegin() throws Exception {
        String table = table("FPR_UPSERT", true, "");
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            Counts before = Counts.now();
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one')"));
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (2, 'two')"));
            assertEquals(1, s.executeUpdate("DELETE FROM " + table + " WHERE K = 2"));
            Counts used = Counts.now().since(before);
            assertEquals(0, used.tmBegins(), "no statement began a transaction at the TM: " + used);
            assertEquals(3, used.fastPathWrites(), "each statement was one bwc: " + used);
            assertEquals(3, used.withoutTm(), used.toString());

            Counts beforeRead = Counts.now();
            assertEquals(Map.of(1L, "one"), rows(s, "SELECT K, V FROM " + table), "a later reader sees them");
            assertEquals(1, Counts.now().since(beforeRead).tmBegins(), "a read needs a snapshot: one TM begin");
        }
    }

    @Test
    void aTableWithAnIndexAndATableWithoutTheSwitchTakeTheRegularPath() throws Exception {
        String indexed = table("FPR_INDEXED", true, "");
        String index = indexed + "_IDX";
        String plain = table("FPR_PLAIN", false, "");
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + indexed + " (V)");
            try (Admin admin = FastPathFixture.hbase().getAdmin()) {
                // even switched on by mistake: the client sees the index and never routes the table
                FastPathSwitch.enable(admin, TableName.valueOf(indexed));
            }
            Counts before = Counts.now();
            assertEquals(1, s.executeUpdate("UPSERT INTO " + indexed + " VALUES (1, 'one')"));
            assertEquals(1, s.executeUpdate("UPSERT INTO " + plain + " VALUES (1, 'one')"));
            Counts used = Counts.now().since(before);
            assertEquals(0, used.fastPathWrites(), used.toString());
            assertEquals(2, used.tmBegins(), "each statement began at the TM: " + used);
            assertEquals(rows(s, "SELECT /*+ NO_INDEX */ K, V FROM " + indexed),
                    rows(s, "SELECT /*+ INDEX(" + indexed + " " + index + ") */ K, V FROM " + indexed
                            + " WHERE V IS NOT NULL"), "the index equals the table");
            assertEquals(Map.of(1L, "one"), rows(s, "SELECT K, V FROM " + plain));
        }
    }

    @Test
    void multiRowAndReadingStatementsOfAFastPathTableTakeTheRegularPath() throws Exception {
        String table = table("FPR_MULTI", true, "");
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one')");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (2, 'two')");
            Counts before = Counts.now();
            assertEquals(2, s.executeUpdate("UPSERT INTO " + table + " SELECT K + 10, V FROM " + table));
            assertEquals(2, s.executeUpdate("DELETE FROM " + table + " WHERE K > 10"));
            Counts used = Counts.now().since(before);
            assertEquals(0, used.fastPathWrites(), used.toString());
            assertEquals(2, used.tmBegins(), used.toString());
            assertEquals(Map.of(1L, "one", 2L, "two"), rows(s, "SELECT K, V FROM " + table));
        }
    }

    @Test
    void aBwcOnARowWithATentativeVersionAbortsAndTheRegularRetryCommits() throws Exception {
        String table = table("FPR_TENTATIVE", true, "");
        try (Connection writer = SharedStack.connect(); Statement w = writer.createStatement();
             Connection c = autoCommit(); Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'before')");
            writer.setAutoCommit(false);
            w.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'regular, open')");
            w.executeQuery("SELECT COUNT(*) FROM " + table).close(); // sends the row: a tentative version of row 1

            Counts before = Counts.now();
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'auto-commit')"));
            Counts used = Counts.now().since(before);
            assertEquals(1, used.tentative(), "the bwc met the open transaction's version: " + used);
            assertEquals(0, used.fastPathWrites(), used.toString());
            assertEquals(1, used.tmBegins(), "the provider retried it as one regular transaction: " + used);
            assertEquals(Map.of(1L, "auto-commit"), rows(s, "SELECT K, V FROM " + table));

            SQLException conflict = assertThrows(SQLException.class, writer::commit,
                    "the open transaction's row was committed over after its start");
            assertEquals(523, conflict.getErrorCode(), conflict.toString());
            assertEquals(Map.of(1L, "auto-commit"), rows(s, "SELECT K, V FROM " + table));
        }
    }

    @Test
    void aFencedRefusalDuringCreateIndexIsA523WhosePhoenixRetryMaintainsTheIndex() throws Exception {
        // The other client caches the table's metadata (UPDATE_CACHE_FREQUENCY) and its fast-path switch (a long
        // belief): right after the index fence it still routes a row onto the fast path, and is refused.
        String table = table("FPR_FENCE", true, ", UPDATE_CACHE_FREQUENCY=600000");
        String index = table + "_IDX";
        Properties longBeliefs = new Properties();
        longBeliefs.setProperty("phoenix.txn.fastpath.switch.cache.ms", "600000");
        SharedStack.routed(longBeliefs);
        try (Connection other = DriverManager.getConnection(
                SharedStack.get().jdbcUrl().replace("localhost", "localhost,127.0.0.1"), longBeliefs);
             Statement o = other.createStatement()) {
            other.setAutoCommit(true);
            Counts warm = Counts.now();
            for (int k = 0; k < 5; k++) {
                o.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "')");
            }
            assertEquals(5, Counts.now().since(warm).fastPathWrites(), "the other client routes the table");

            AtomicReference<Object> afterFence = new AtomicReference<>();
            IndexBuildHooks.install(new IndexBuildHooks() {
                @Override
                public void afterFence(String physicalTable, long fence) {
                    if (!physicalTable.equals(table)) {
                        return;
                    }
                    try {
                        Counts before = Counts.now();
                        int updated = o.executeUpdate("UPSERT INTO " + table + " VALUES (100, 'after fence')");
                        afterFence.set(new Object[] {updated, Counts.now().since(before)});
                    } catch (Exception e) {
                        afterFence.set(e);
                    }
                }
            });
            try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE INDEX " + index + " ON " + table + " (V)");
            }
            IndexBuildHooks.install(IndexBuildHooks.NONE);

            Object outcome = afterFence.get();
            assertTrue(outcome instanceof Object[], "the statement after the fence succeeded: " + outcome);
            Object[] result = (Object[]) outcome;
            Counts used = (Counts) result[1];
            assertEquals(1, result[0]);
            assertEquals(1, used.fenced(), "the region server refused the stale route (FENCED -> 523): " + used);
            assertEquals(0, used.fastPathWrites(), used.toString());
            assertEquals(1, used.tmBegins(), "Phoenix's retry ran as a regular transaction: " + used);

            Counts afterDdl = Counts.now();
            o.executeUpdate("UPSERT INTO " + table + " VALUES (101, 'after the index')");
            assertEquals(0, Counts.now().since(afterDdl).fastPathWrites(), "the table has an index now");
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            Map<Long, String> fromTable = rows(s, "SELECT /*+ NO_INDEX */ K, V FROM " + table);
            Map<Long, String> fromIndex = rows(s, "SELECT /*+ INDEX(" + table + " " + index + ") */ K, V FROM "
                    + table + " WHERE V IS NOT NULL");
            assertEquals(7, fromTable.size(), fromTable.toString());
            assertEquals("after fence", fromTable.get(100L));
            assertEquals(fromTable, fromIndex, "the index equals the table");
        }
    }

    /**
     * The regular retry of an aborted bwc begins after the abort; an index created in between (fence below that
     * start) is missing from the metadata the row was built from. The retry re-reads the fast-path switch after its
     * start (CREATE INDEX turned it off before its fence) and aborts with 523; Phoenix's retry re-sends the row with
     * the index's maintenance.
     */
    @Test
    void anIndexCreatedBetweenABwcAbortAndItsRegularRetryIsMaintained() throws Exception {
        String table = table("FPR_RETRY_FENCE", true, "");
        String index = table + "_IDX";
        try (Connection writer = SharedStack.connect(); Statement w = writer.createStatement();
             Connection c = autoCommit(); Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'before')");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (2, 'two')");
            writer.setAutoCommit(false);
            w.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'regular, open')");
            w.executeQuery("SELECT COUNT(*) FROM " + table).close(); // a tentative version of row 1: bwc aborts

            AtomicReference<Exception> ddl = new AtomicReference<>();
            RoutingHooks.install(new RoutingHooks() {
                @Override
                public void beforeRegularRetry(TableName physical) {
                    if (!physical.getNameAsString().equals(table)) {
                        return;
                    }
                    RoutingHooks.install(RoutingHooks.NONE);
                    // another client (its own metadata cache), so that Phoenix's retry finds the index new
                    try (Connection other = SharedStack.connectAsAnotherClient();
                         Statement o = other.createStatement()) {
                        o.execute("CREATE INDEX " + index + " ON " + table + " (V)");
                    } catch (Exception e) {
                        ddl.set(e);
                    }
                }
            });
            Counts before = Counts.now();
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'auto-commit')"));
            RoutingHooks.install(RoutingHooks.NONE);
            assertNull(ddl.get(), "CREATE INDEX in the hook");
            Counts used = Counts.now().since(before);
            assertEquals(1, used.tentative(), used.toString());
            assertEquals(0, used.fastPathWrites(), used.toString());
            writer.rollback();

            Map<Long, String> fromTable = rows(s, "SELECT /*+ NO_INDEX */ K, V FROM " + table);
            Map<Long, String> fromIndex = rows(s, "SELECT /*+ INDEX(" + table + " " + index + ") */ K, V FROM "
                    + table + " WHERE V IS NOT NULL");
            assertEquals(Map.of(1L, "auto-commit", 2L, "two"), fromTable);
            assertEquals(fromTable, fromIndex, "the index equals the table");
        }
    }

    /**
     * Review F-A: Phoenix resolves metadata at the id a lazily begun transaction shows, and DDL on transactional
     * tables is stamped with TM timestamps. With a client clock 10 s behind the TM's (skew; or a new TM primary's
     * epoch, reserved ahead of the wall clock), provisional ids drawn from the local clock predated DDL that had just
     * happened: an UPSERT right after CREATE TABLE failed with "table undefined" (Phoenix retries the lookup once, at
     * the same id), and CREATE INDEX (whose population Phoenix compiles on an auto-commit connection) could not find
     * its own index. Provisional ids follow this client's estimate of the TM's clock (TmClockEstimate).
     */
    @Test
    void aClientClockBehindTheTmStillSeesTheDdlThatJustHappened() throws Exception {
        String mine = SharedStack.uniqueTable("FPR_LAG_MINE");
        String theirs = SharedStack.uniqueTable("FPR_LAG_THEIRS");
        ProvisionalClock.install(() -> System.currentTimeMillis() - 10_000);
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + mine + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            assertEquals(1, s.executeUpdate("UPSERT INTO " + mine + " VALUES (1, 'one')"), "right after the CREATE");
            assertEquals(Map.of(1L, "one"), rows(s, "SELECT K, V FROM " + mine));

            try (Connection other = SharedStack.connectAsAnotherClient(); Statement o = other.createStatement()) {
                o.execute("CREATE TABLE " + theirs + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            }
            assertEquals(1, s.executeUpdate("UPSERT INTO " + theirs + " VALUES (2, 'two')"),
                    "another client's table, created after this client last talked to the TM");
            assertEquals(Map.of(2L, "two"), rows(s, "SELECT K, V FROM " + theirs));

            String index = mine + "_IDX";
            s.execute("CREATE INDEX " + index + " ON " + mine + " (V)");
            assertEquals(1, s.executeUpdate("UPSERT INTO " + mine + " VALUES (3, 'three')"));
            Map<Long, String> fromTable = rows(s, "SELECT /*+ NO_INDEX */ K, V FROM " + mine);
            assertEquals(Map.of(1L, "one", 3L, "three"), fromTable);
            assertEquals(fromTable, rows(s, "SELECT /*+ INDEX(" + mine + " " + index + ") */ K, V FROM " + mine
                    + " WHERE V IS NOT NULL"), "the index, built and maintained, equals the table");
        } finally {
            ProvisionalClock.install(null);
        }
    }

    /**
     * F1: after a FENCED refusal Phoenix's retry re-reads the table's metadata at the id of the transaction it begins
     * and re-sends the row (an immutable table is always re-sent). A client clock that lags the TM's (skew) must not
     * make that read predate the index whose fence refused the row: the retry begins at the TM, above the fence, so
     * the re-sent row maintains the index. An end-to-end guard: it also passes without that eager begin, because
     * Phoenix 5.2.1's catalog answers a read at any time after the data table's own last change with the table as
     * it is now, indexes included (MetaDataEndpointImpl.doGetTable); PhoenixTxnContextTest shows the provider side.
     */
    @Test
    void theReplayAfterAFencedRefusalMaintainsTheNewIndexThoughTheClientClockLags() throws Exception {
        String table = table("FPR_SKEW", true, ", IMMUTABLE_ROWS=true, UPDATE_CACHE_FREQUENCY=600000");
        String index = table + "_IDX";
        Properties longBeliefs = new Properties();
        longBeliefs.setProperty("phoenix.txn.fastpath.switch.cache.ms", "600000");
        SharedStack.routed(longBeliefs);
        try (Connection other = DriverManager.getConnection(
                SharedStack.get().jdbcUrl().replace("localhost", "localhost,127.0.0.1"), longBeliefs);
             Statement o = other.createStatement()) {
            other.setAutoCommit(true);
            Counts warm = Counts.now();
            o.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one')");
            assertEquals(1, Counts.now().since(warm).fastPathWrites(), "the client routes the table");

            long lagging = System.currentTimeMillis(); // the table exists at it; the index will not
            AtomicReference<Exception> ddl = new AtomicReference<>();
            RoutingHooks.install(new RoutingHooks() {
                @Override
                public void beforeFastPathWrite(TableName physical) {
                    if (!physical.getNameAsString().equals(table)) {
                        return;
                    }
                    RoutingHooks.install(RoutingHooks.NONE);
                    while (System.currentTimeMillis() <= lagging) {
                        Thread.onSpinWait(); // the index's catalog row lands at a later millisecond than the clock
                    }
                    try (Connection c = SharedStack.connectAsAnotherClient(); Statement s = c.createStatement()) {
                        s.execute("CREATE INDEX " + index + " ON " + table + " (V)");
                    } catch (Exception e) {
                        ddl.set(e);
                    }
                    forgetServerSideMetadata();
                }
            });
            ProvisionalClock.install(() -> lagging);
            Counts before = Counts.now();
            assertEquals(1, o.executeUpdate("UPSERT INTO " + table + " VALUES (100, 'after the index')"));
            Counts used = Counts.now().since(before);
            ProvisionalClock.install(null);
            assertNull(ddl.get(), "CREATE INDEX in the hook");
            assertEquals(1, used.fenced(), "the bwc was refused (FENCED -> 523): " + used);
            assertEquals(0, used.fastPathWrites(), used.toString());
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            Map<Long, String> fromTable = rows(s, "SELECT /*+ NO_INDEX */ K, V FROM " + table);
            Map<Long, String> fromIndex = rows(s, "SELECT /*+ INDEX(" + table + " " + index + ") */ K, V FROM "
                    + table + " WHERE V IS NOT NULL");
            assertEquals(Map.of(1L, "one", 100L, "after the index"), fromTable);
            assertEquals(fromTable, fromIndex, "the index equals the table");
        }
    }

    /** F8: the fast path of a Phoenix table with an index cannot be turned on; the error names the index. */
    @Test
    void enablingTheFastPathOfATableWithAnIndexIsRefusedNamingTheIndex() throws Exception {
        String table = table("FPR_ENABLE", false, "");
        String index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V)");
            SQLException refused = assertThrows(SQLException.class, () -> PhoenixFastPath.enable(c, table));
            assertTrue(refused.getMessage().contains(index), refused.getMessage());
        }
        try (Admin admin = FastPathFixture.hbase().getAdmin()) {
            assertFalse(FastPathSwitch.isEnabled(admin.getDescriptor(TableName.valueOf(table))), "still off");
        }
    }

    /**
     * F-C: the fast path is enabled after checks that read the table's metadata now, on a connection of their own:
     * the caller's open transaction began before another client's CREATE INDEX, and reading at its start would not
     * see the index. Nor do the checks leave a transaction running on the caller's auto-commit connection.
     */
    @Test
    void enablingTheFastPathSeesAnIndexCreatedAfterTheCallersTransactionBegan() throws Exception {
        String table = table("FPR_ENABLE_OPEN", false, "");
        String index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals(Map.of(), rows(s, "SELECT K, V FROM " + table), "a transaction is open on c");
            try (Connection other = SharedStack.connectAsAnotherClient(); Statement o = other.createStatement()) {
                o.execute("CREATE INDEX " + index + " ON " + table + " (V)");
            }
            SQLException refused = assertThrows(SQLException.class, () -> PhoenixFastPath.enable(c, table));
            assertTrue(refused.getMessage().contains(index), refused.getMessage());
            c.rollback();
        }
        try (Admin admin = FastPathFixture.hbase().getAdmin()) {
            assertFalse(FastPathSwitch.isEnabled(admin.getDescriptor(TableName.valueOf(table))), "still off");
        }

        String plain = table("FPR_ENABLE_AUTO", false, "");
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            assertEquals(Map.of(), rows(s, "SELECT K, V FROM " + plain)); // c caches the table's metadata
            PhoenixFastPath.enable(c, plain);
            assertFalse(c.unwrap(PhoenixConnection.class).getMutationState().isTransactionStarted(),
                    "the checks left no transaction running on the caller's connection");
        }
    }

    /**
     * F-B: a transaction begun lazily on an auto-commit connection (a metadata lookup starts one, and nothing ends
     * it) is still running after auto-commit was turned off. Its row must not be kept back for the fast path: if it
     * were, a later read would write it regularly at a start above the fence of an index created meanwhile, with
     * neither the index's maintenance nor a check, and the commit would leave the index without it.
     */
    @Test
    void aLazilyBegunTransactionGoingOnAfterAutoCommitIsTurnedOffMaintainsAnIndexCreatedMeanwhile()
            throws Exception {
        String table = table("FPR_AC_OFF", true, "");
        String other = table("FPR_AC_OFF_U", false, "");
        String index = table + "_IDX";
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            PhoenixRuntime.getTableNoCache(c, table); // starts the transaction (deferred); nothing ends it
            assertTrue(c.unwrap(PhoenixConnection.class).getMutationState().isTransactionStarted());
            c.setAutoCommit(false); // commits nothing: the deferred transaction goes on
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one')"));
            try (ResultSet none = s.executeQuery("SELECT * FROM " + table + " WHERE 1=0")) {
                assertFalse(none.next()); // sends the buffered row without scanning
            }
            try (Connection o = SharedStack.connectAsAnotherClient(); Statement os = o.createStatement()) {
                os.execute("CREATE INDEX " + index + " ON " + table + " (V)");
            }
            try (ResultSet count = s.executeQuery("SELECT COUNT(*) FROM " + other)) {
                assertTrue(count.next()); // a scan: the transaction needs a snapshot from the TM
                assertEquals(0, count.getLong(1));
            }
            c.commit();
        }
        assertEquals(Map.of(1L, "one"), IndexChecks.assertIndexEqualsTable(table, index, "K, V"));
    }

    /**
     * An auto-commit UPSERT of a fast-path table: Phoenix builds the row from metadata read at the provisional id (no
     * index). Another client's CREATE INDEX then lands before the provider decides the row's route at send (hook; this
     * service reads the switch afresh each time, cache 0 ms): the switch is off, so the row is written regularly, and
     * the transaction begins at the TM above the index's fence, where the TM's fence check would not catch a row
     * without the index's maintenance. The re-read of the table's metadata after the start finds the index and the
     * statement fails with a retryable 523 (as Phoenix reports a failed send: a CommitException caused by it),
     * nothing written; the next transaction on the connection begins at the TM,
     * and the retried statement maintains the index.
     */
    @Test
    void aRowBuiltBeforeAnIndexWasCreatedAndSentAfterIsRefusedWithA523() throws Exception {
        String table = table("FPR_SEND_IDX", true, "");
        String index = table + "_IDX";
        Properties props = new Properties();
        props.setProperty(io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_CACHE_MS.key(), "0");
        try (Connection c = SharedStack.connectThroughOwnService("localhost,localhost,localhost", props);
             Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            AtomicReference<Exception> ddl = new AtomicReference<>();
            RoutingHooks.install(new RoutingHooks() {
                @Override
                public void beforeSendDecision(TableName physical) {
                    RoutingHooks.install(RoutingHooks.NONE); // once
                    try (Connection o = SharedStack.connectAsAnotherClient(); Statement os = o.createStatement()) {
                        os.execute("CREATE INDEX " + index + " ON " + table + " (V)");
                    } catch (SQLException e) {
                        ddl.set(e);
                    }
                }
            });
            Counts before = Counts.now();
            SQLException refused = assertThrows(SQLException.class,
                    () -> s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one')"));
            assertNull(ddl.get());
            // Phoenix reports a failed send as its CommitException (code 0) caused by the 523.
            assertEquals(523, ((SQLException) refused.getCause()).getErrorCode(), refused.toString());
            assertTrue(refused.getMessage().contains(index), refused.getMessage());
            assertEquals(0, Counts.now().since(before).fastPathWrites(), "no bwc was sent");
            assertEquals(Map.of(), rows(s, "SELECT K, V FROM " + table));
            long begins = FastPathRoutingStats.tmBegins();
            assertEquals(1, s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one')"));
            assertTrue(FastPathRoutingStats.tmBegins() > begins, "the retry began at the TM");
        }
        assertEquals(Map.of(1L, "one"), IndexChecks.assertIndexEqualsTable(table, index, "K, V"));
    }

    @Test
    void explicitTransactionsBeginAtOnceAndReadTheirOwnWrites() throws Exception {
        String fast = table("FPR_EXPLICIT", true, "");
        String plain = table("FPR_EXPLICIT_PLAIN", false, "");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement();
             Connection other = SharedStack.connect(); Statement o = other.createStatement()) {
            c.setAutoCommit(false);
            other.setAutoCommit(true); // each query its own snapshot
            Counts before = Counts.now();
            s.executeUpdate("UPSERT INTO " + fast + " VALUES (1, 'mine')");
            s.executeUpdate("UPSERT INTO " + plain + " VALUES (1, 'mine too')");
            assertEquals(Map.of(1L, "mine"), rows(s, "SELECT K, V FROM " + fast), "read your own writes");
            assertEquals(Map.of(1L, "mine too"), rows(s, "SELECT K, V FROM " + plain));
            assertEquals(Map.of(), rows(o, "SELECT K, V FROM " + fast), "not visible before commit");
            c.commit();
            Counts used = Counts.now().since(before);
            assertEquals(0, used.fastPathWrites(), used.toString());
            assertEquals(Map.of(1L, "mine"), rows(o, "SELECT K, V FROM " + fast));
            assertEquals(Map.of(1L, "mine too"), rows(o, "SELECT K, V FROM " + plain));
            c.rollback();
        }
    }

    @Test
    void anAutoCommitStatementWritingOnlyANonFastPathTableWorksAndARollbackOfNothingNeedsNoTm() throws Exception {
        String plain = table("FPR_LAZY_PLAIN", false, "");
        try (Connection c = autoCommit(); Statement s = c.createStatement()) {
            Counts before = Counts.now();
            assertEquals(1, s.executeUpdate("UPSERT INTO " + plain + " VALUES (7, 'seven')"));
            assertEquals(1, Counts.now().since(before).tmBegins());
            assertEquals(Map.of(7L, "seven"), rows(s, "SELECT K, V FROM " + plain));
            assertNull(rows(s, "SELECT K, V FROM " + plain + " WHERE K = 8").get(8L));
        }
    }

    /**
     * Empties the region servers' cache of table metadata (as a SYSTEM.CATALOG region move, a restart or an eviction
     * does): the next metadata read is built from the catalog as of the timestamp the client asks at, not answered
     * with the newest table the server happens to cache.
     */
    private static void forgetServerSideMetadata() {
        org.apache.phoenix.cache.GlobalCache.getInstance(null).getMetaDataCache().invalidateAll();
    }

    private static Map<Long, String> rows(Statement s, String query) throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        try (ResultSet r = s.executeQuery(query)) {
            while (r.next()) {
                rows.put(r.getLong(1), r.getString(2));
            }
        }
        return rows;
    }
}
