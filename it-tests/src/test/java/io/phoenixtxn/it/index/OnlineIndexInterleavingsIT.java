package io.phoenixtxn.it.index;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.it.ClientFixture;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.phoenixtxn.it.index.IndexChecks.assertIndexEqualsTable;
import static io.phoenixtxn.it.index.IndexChecks.transactionId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Online CREATE INDEX with a writer landed at each point of the build, forced with {@link IndexBuildHooks} and
 * {@link ProtocolHooks} latches (the region servers run in this JVM): before the fence, between the fence and the
 * population, while the population scans, after it wrote its rows, and a writer whose commit was decided before the
 * fence but is still pending when the population reads it. After each, the index must equal the table value by
 * value. VLDB'18 sec. 6.1: writers that started before the fence and write the table abort; later writers maintain
 * the index themselves; the population covers everything committed below the fence.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OnlineIndexInterleavingsIT {
    private static final long LATCH_SECONDS = 60;
    private static final String COLUMNS = "K, V, N";

    private String table;
    private String index;
    /** Abort reasons the TM gave, by transaction id, recorded by the protocol hook. */
    private final List<AbortReason> aborts = new CopyOnWriteArrayList<>();
    private final AtomicLong fence = new AtomicLong(-1);

    @BeforeEach
    void createTable() throws SQLException {
        table = SharedStack.uniqueTable("FENCED");
        index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            c.setAutoCommit(false);
            for (int k = 0; k < 100; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "', " + k + ")");
            }
            c.commit();
        }
    }

    @AfterEach
    void restoreHooks() {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
        ProtocolHooks.install(ProtocolHooks.NONE);
    }

    /**
     * A client that had not seen the new index: its commit is aborted by the fence, Phoenix's commit retry
     * re-reads the table's metadata, finds the new index and replays the transaction with the index's maintenance.
     */
    @Test
    void writerOfAnotherClientIsAbortedByTheFenceAndPhoenixReplaysItWithTheNewIndex() throws Exception {
        recordAborts(null);
        try (Connection writer = SharedStack.connectAsAnotherClient()) {
            writer.setAutoCommit(false);
            upsert(writer, 1000, "early", 1);
            upsert(writer, 5, "changed", 5);
            createIndex();
            writer.commit(); // first attempt aborted by the fence; Phoenix sees the new index and replays
        }
        assertEquals(List.of(AbortReason.FENCE), aborts, "exactly one attempt was aborted, by the fence");
        Map<Long, String> rows = assertIndexEqualsTable(table, index, COLUMNS);
        assertEquals("early|1", rows.get(1000L));
        assertEquals("changed|5", rows.get(5L));
    }

    /**
     * A connection of the client that ran CREATE INDEX shares its metadata cache (Phoenix 5.2 keeps one per
     * connection service), so Phoenix's retry finds no index it had not seen and does not replay: the fence abort
     * reaches the application as 523 with our reason, and the application's retry commits with the index.
     */
    @Test
    void writerSharingTheIndexCreatorsMetadataGets523SayingWhyAndItsRetrySucceeds() throws Exception {
        recordAborts(null);
        try (Connection writer = SharedStack.connect()) {
            writer.setAutoCommit(false);
            upsert(writer, 1001, "early", 1);
            createIndex();
            SQLException e = assertThrows(SQLException.class, writer::commit);
            assertFenceAbort(e);
            assertEquals(List.of(AbortReason.FENCE), aborts);

            writer.rollback();
            upsert(writer, 1001, "retried", 2);
            writer.commit();
        }
        assertEquals(List.of(AbortReason.FENCE), aborts, "the retry began after the fence and committed");
        assertEquals("retried|2", assertIndexEqualsTable(table, index, COLUMNS).get(1001L));
    }

    /** Phoenix replays a fenced commit once per new index: a replay fenced again reports 523 to the application. */
    @Test
    void replayFencedAgainReachesJdbcAs523() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        try (Connection writer = SharedStack.connectAsAnotherClient()) {
            writer.setAutoCommit(false);
            upsert(writer, 1003, "early", 1);
            long writerThread = Thread.currentThread().getId();
            createIndex();
            // A second fence (another index build starting) lands between Phoenix's replay and its commit.
            recordAborts(txId -> {
                if (Thread.currentThread().getId() == writerThread && attempts.incrementAndGet() == 2) {
                    try (TxnClient client = ClientFixture.client(TxnClientConfig.PostCommitMode.SYNC)) {
                        client.fence(TableName.valueOf(table));
                    }
                }
            });
            SQLException e = assertThrows(SQLException.class, writer::commit);
            assertFenceAbort(e);
            assertEquals(List.of(AbortReason.FENCE, AbortReason.FENCE), aborts, "the first attempt and the replay");
            writer.rollback();
        }
        assertIndexEqualsTable(table, index, COLUMNS);
    }

    private static void assertFenceAbort(SQLException e) {
        assertEquals(523, e.getErrorCode(), e.toString());
        assertTrue(e.getMessage().contains("an index is being created on a table this transaction writes"),
                e.getMessage());
        assertTrue(e.getMessage().contains("retry the transaction"), e.getMessage());
    }

    @Test
    void writersBetweenTheFenceAndThePopulation() throws Exception {
        recordAborts(null);
        try (Connection early = SharedStack.connectAsAnotherClient()) {
            early.setAutoCommit(false);
            upsert(early, 1002, "early", 1);
            landAt(Point.AFTER_FENCE, () -> {
                // Began after the fence: commits at once and writes its own index rows.
                try (Connection late = SharedStack.connect()) {
                    late.setAutoCommit(false);
                    upsert(late, 2000, "late", 1);
                    upsert(late, 7, "seven", 70);
                    delete(late, 8);
                    late.commit();
                }
                assertEquals(List.of(), aborts, "a writer that began after the fence is not aborted");
                // Began before the fence: aborted by it, replayed by Phoenix with the new index's maintenance,
                // all before the population has read a row.
                early.commit();
                assertEquals(List.of(AbortReason.FENCE), aborts);
            });
        }
        Map<Long, String> rows = assertIndexEqualsTable(table, index, COLUMNS);
        assertEquals("late|1", rows.get(2000L));
        assertEquals("seven|70", rows.get(7L));
        assertEquals("early|1", rows.get(1002L));
        assertTrue(!rows.containsKey(8L), "deleted row");
    }

    @Test
    void writerCommittingWhileThePopulationScans() throws Exception {
        recordAborts(null);
        landAt(Point.MID_SCAN, () -> {
            // The build's progress is a metric meanwhile.
            ObjectName metric = new ObjectName("io.phoenixtxn:type=IndexBuild,table=" + ObjectName.quote(table)
                    + ",fence=" + fence.get());
            long scanned = (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(metric, "RowsScanned");
            assertTrue(scanned >= 10, "rows scanned so far: " + scanned);
            try (Connection late = SharedStack.connect()) {
                late.setAutoCommit(false);
                // rows already scanned (low keys) and rows not scanned yet (high keys)
                upsert(late, 1, "one", 10);
                upsert(late, 97, "ninety-seven", 970);
                delete(late, 2);
                delete(late, 98);
                upsert(late, 2001, "new", 1);
                late.commit();
            }
        });
        assertEquals(List.of(), aborts);
        Map<Long, String> rows = assertIndexEqualsTable(table, index, COLUMNS);
        assertEquals("one|10", rows.get(1L));
        assertEquals("ninety-seven|970", rows.get(97L));
        assertTrue(!rows.containsKey(2L) && !rows.containsKey(98L), "deleted rows");
    }

    @Test
    void writerCommittingAfterThePopulationWroteItsRows() throws Exception {
        recordAborts(null);
        landAt(Point.BEFORE_POPULATION_COMMIT, () -> {
            try (Connection late = SharedStack.connect()) {
                late.setAutoCommit(false);
                upsert(late, 3, "three", 30);
                delete(late, 4);
                upsert(late, 2002, "new", 2);
                late.commit();
            }
        });
        assertEquals(List.of(), aborts);
        Map<Long, String> rows = assertIndexEqualsTable(table, index, COLUMNS);
        assertEquals("three|30", rows.get(3L));
        assertEquals("new|2", rows.get(2002L));
        assertTrue(!rows.containsKey(4L), "deleted row");
    }

    /**
     * A client whose cached metadata predates the new index (another connection service, as another JVM) runs a
     * DELETE after the fence: Phoenix computes the DELETE's index deletes from that cache and would skip the new
     * index. The commit is refused (523, saying why) instead of leaving the deleted row in the index; re-running the
     * statement, with the metadata Phoenix refreshed meanwhile, maintains it. Upserts need no such help.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"(V) INCLUDE (N)|", "(UPPER(V)) INCLUDE (N)|",
            "(V) INCLUDE (N)|, IMMUTABLE_ROWS=true"})
    void deleteByAClientThatHasNotSeenTheIndexIsRefusedAndItsRerunMaintainsIt(String shape) throws Exception {
        String[] parts = shape.split("\\|", -1);
        table = SharedStack.uniqueTable("FENCED_SHAPE");
        index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true"
                    + parts[1]);
            c.setAutoCommit(false);
            for (int k = 0; k < 100; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "', " + k + ")");
            }
            c.commit();
        }
        recordAborts(null);
        try (Connection sameClient = SharedStack.connect();
             Connection otherClient = SharedStack.connectAsAnotherClient()) {
            for (Connection c : List.of(sameClient, otherClient)) { // both cache the table before the index exists
                c.setAutoCommit(false);
                IndexChecks.count(c, table);
                c.commit();
            }
            landAt(Point.AFTER_FENCE, () -> {
                delete(sameClient, 5);
                sameClient.commit();
                delete(otherClient, 6);
                SQLException e = assertThrows(SQLException.class, otherClient::commit);
                assertEquals(523, e.getErrorCode(), e.toString());
                assertTrue(e.getMessage().contains("without maintaining index"), e.getMessage());
                otherClient.rollback();
                delete(otherClient, 6); // re-run: the failed commit refreshed the client's metadata
                otherClient.commit();
                upsert(otherClient, 2000, "late", 1);
                otherClient.commit();
            }, SharedStack::connect, "CREATE INDEX " + index + " ON " + table + " " + parts[0]);
        }
        assertEquals(List.of(), aborts, "no TM abort: the refused commit never reached the TM");
        String columns = parts[0].startsWith("(UPPER") ? "K, UPPER(V), N" : COLUMNS;
        Map<Long, String> rows = assertIndexEqualsTable(table, index, columns);
        assertTrue(!rows.containsKey(5L) && !rows.containsKey(6L) && rows.containsKey(2000L), rows.toString());
    }

    /** With server-side UPSERT SELECT enabled, Phoenix populates the index on the region servers. */
    @Test
    void populationOnTheRegionServersMatchesTheTable() throws Exception {
        try (Connection c = SharedStack.connectWithServerSideUpsertSelect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        }
        assertEquals(100, assertIndexEqualsTable(table, index, COLUMNS).size());
    }

    /**
     * The reader-vs-committer race at the fence: the TM decided a writer's commit below the fence, but its commit
     * point (commit-table write) has not happened when the population reads its row. The population must wait for
     * it and include the row; the index must not miss a transaction committed below its fence.
     */
    @Test
    void writerDecidedBelowTheFenceButStillPendingWhenThePopulationReadsIt() throws Exception {
        recordAborts(null);
        AtomicLong writerTx = new AtomicLong(-1);
        CountDownLatch decided = new CountDownLatch(1);
        CountDownLatch populationMetWriter = new CountDownLatch(1);
        CountDownLatch writerCommitted = new CountDownLatch(1);
        AtomicBoolean populationWaited = new AtomicBoolean();
        ProtocolHooks recorder = ProtocolHooks.current();
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmAbort(long txId, AbortReason reason) {
                recorder.afterTmAbort(txId, reason);
            }

            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == writerTx.get()) {
                    decided.countDown();
                    await(populationMetWriter);
                }
            }

            @Override
            public void afterCommitPoint(long txId, long commitTs) {
                if (txId == writerTx.get()) {
                    writerCommitted.countDown();
                }
            }

            @Override
            public void onPendingVersion(long pendingTxId) {
                // On the region server, inside the population's scan: let the writer reach its commit point first.
                if (pendingTxId == writerTx.get() && populationWaited.compareAndSet(false, true)) {
                    populationMetWriter.countDown();
                    await(writerCommitted);
                }
            }
        });
        CompletableFuture<Void> commit;
        try (Connection writer = SharedStack.connect()) {
            writer.setAutoCommit(false);
            upsert(writer, 11, "eleven", 110);
            upsert(writer, 3000, "pending", 3);
            writerTx.set(transactionId(writer));
            commit = CompletableFuture.runAsync(() -> {
                try {
                    writer.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            await(decided);
            createIndex(); // fence above the writer's commit timestamp; the population meets its pending cells
            commit.get(LATCH_SECONDS, TimeUnit.SECONDS);
        }
        assertTrue(populationWaited.get(), "the population read the writer's pending version");
        assertEquals(List.of(), aborts, "the writer was decided before the fence and was not aborted");
        Map<Long, String> rows = assertIndexEqualsTable(table, index, COLUMNS);
        assertEquals("eleven|110", rows.get(11L));
        assertEquals("pending|3", rows.get(3000L));
    }

    /** A writer that crashed after its commit point (no commit cells) is in the population through the commit table. */
    @Test
    void writerCrashedAfterItsCommitPointBeforeTheFenceIsInThePopulation() throws Exception {
        AtomicLong writerTx = new AtomicLong(-1);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterCommitPoint(long txId, long commitTs) throws IOException {
                if (txId == writerTx.get()) {
                    throw new IOException("simulated client crash after the commit point");
                }
            }
        });
        try (Connection writer = SharedStack.connect()) {
            writer.setAutoCommit(false);
            upsert(writer, 12, "twelve", 120);
            writerTx.set(transactionId(writer));
            SQLException crash = assertThrows(SQLException.class, writer::commit);
            assertTrue(crash.getMessage().contains("simulated client crash"), crash.getMessage());
        }
        ProtocolHooks.install(ProtocolHooks.NONE);
        createIndex();
        assertEquals("twelve|120", assertIndexEqualsTable(table, index, COLUMNS).get(12L));
    }

    /** The fence is per table: a transaction that began before it but writes only other tables commits. */
    @Test
    void writerOfAnotherTableIsNotFenced() throws Exception {
        String other = SharedStack.uniqueTable("UNFENCED");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + other + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
        }
        recordAborts(null);
        try (Connection writer = SharedStack.connect()) {
            writer.setAutoCommit(false);
            try (Statement s = writer.createStatement()) {
                s.executeUpdate("UPSERT INTO " + other + " VALUES (1, 'x', 1)");
                s.executeQuery("SELECT COUNT(*) FROM " + table).close(); // reads the fenced table: no abort
            }
            createIndex();
            writer.commit();
        }
        assertEquals(List.of(), aborts);
        try (Connection c = SharedStack.connect()) {
            assertEquals(1, IndexChecks.count(c, other));
        }
        assertIndexEqualsTable(table, index, COLUMNS);
    }

    // ---- plumbing

    private enum Point { AFTER_FENCE, MID_SCAN, BEFORE_POPULATION_COMMIT }

    /** Work run on the CREATE INDEX thread while the build is held at a point. */
    private interface Interleaved {
        void run() throws Exception;
    }

    /** Runs CREATE INDEX; when the build reaches {@code point} (on this test's table), runs {@code work} there. */
    private void landAt(Point point, Interleaved work) throws Exception {
        landAt(point, work, SharedStack::connect);
    }

    private interface ConnectionSource {
        Connection open() throws SQLException;
    }

    private void landAt(Point point, Interleaved work, ConnectionSource creator) throws Exception {
        landAt(point, work, creator, "CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
    }

    private void landAt(Point point, Interleaved work, ConnectionSource creator, String ddl) throws Exception {
        String physical = table;
        AtomicBoolean ran = new AtomicBoolean();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterFence(String physicalTable, long fenceTs) {
                if (physicalTable.equals(physical)) {
                    fence.set(fenceTs);
                    if (point == Point.AFTER_FENCE) {
                        runOnce();
                    }
                }
            }

            @Override
            public void afterRowsScanned(long fenceTs, long rowsSoFar) {
                if (point == Point.MID_SCAN && fenceTs == fence.get() && rowsSoFar >= 10) {
                    runOnce();
                }
            }

            @Override
            public void beforePopulationCommit(long fenceTs) {
                if (point == Point.BEFORE_POPULATION_COMMIT && fenceTs == fence.get()) {
                    runOnce();
                }
            }

            /** Runs the work on its own thread (the hook's may be a region server's RPC handler) and waits for it. */
            private void runOnce() {
                if (ran.compareAndSet(false, true)) {
                    try {
                        CompletableFuture.runAsync(() -> {
                            try {
                                work.run();
                            } catch (Exception e) {
                                throw new CompletionException(e);
                            }
                        }).get(LATCH_SECONDS, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        failures.add(e.getCause() instanceof CompletionException ? e.getCause().getCause()
                                : e.getCause());
                    } catch (Exception e) {
                        failures.add(e);
                    }
                }
            }
        });
        try (Connection c = creator.open(); Statement s = c.createStatement()) {
            s.execute(ddl);
        }
        IndexBuildHooks.install(IndexBuildHooks.NONE);
        assertTrue(ran.get(), "the build reached " + point);
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("work landed at " + point + " failed", failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    /** Records the TM's abort decisions; {@code beforeCommit} (may be null) runs before each TM commit call. */
    private void recordAborts(TxHook beforeCommit) {
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void beforeTmCommit(long txId) throws IOException {
                if (beforeCommit != null) {
                    beforeCommit.run(txId);
                }
            }

            @Override
            public void afterTmAbort(long txId, AbortReason reason) {
                aborts.add(reason);
            }
        });
    }

    private interface TxHook {
        void run(long txId) throws IOException;
    }

    private void createIndex() throws SQLException {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        }
    }

    private void upsert(Connection c, long k, String v, long n) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", '" + v + "', " + n + ")");
        }
    }

    private void delete(Connection c, long k) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM " + table + " WHERE K = " + k);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(LATCH_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in " + LATCH_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
