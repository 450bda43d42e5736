package io.phoenixtxn.it.index;

import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.index.IndexBuildProgress;
import io.phoenixtxn.index.PopulationPacer;
import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CREATE INDEX on a table that writers keep upserting, updating and deleting in transactions. The index is
 * populated from the snapshot at its fence and written at the fence; writers that began before the fence abort
 * (523) and Phoenix replays them; later writers maintain the index. The build is held (hooks) at one point, after
 * the fence, in the middle of the population's scan, or after it wrote its rows, until the writers committed a
 * given number of transactions there; so every run lands writes at that point. Afterwards the index must equal
 * the table row by row and value by value, and queries through the index must return what a full scan returns.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class OnlineIndexIT {
    private static final int KEYS = 400;
    private static final int WRITERS = 3;
    /** Commits the writers must make while the build is held at its point. */
    private static final int COMMITS_WHILE_HELD = 30;

    /** What kind of index on what kind of table. */
    enum Shape {
        COVERED("", "(V) INCLUDE (N)", "K, V, N", "V"),
        FUNCTIONAL("", "(UPPER(V)) INCLUDE (N)", "K, UPPER(V), N", "UPPER(V)"),
        IMMUTABLE_TABLE(", IMMUTABLE_ROWS=true", "(V) INCLUDE (N)", "K, V, N", "V");

        final String tableOptions;
        final String indexDefinition;
        final String columns;
        final String indexedExpression;

        Shape(String tableOptions, String indexDefinition, String columns, String indexedExpression) {
            this.tableOptions = tableOptions;
            this.indexDefinition = indexDefinition;
            this.columns = columns;
            this.indexedExpression = indexedExpression;
        }
    }

    /** Where the build is held while the writers commit. */
    enum Point { AFTER_FENCE, MID_SCAN, BEFORE_POPULATION_COMMIT }

    static Stream<Arguments> builds() {
        return Stream.of(
                Arguments.of(Shape.COVERED, Point.AFTER_FENCE),
                Arguments.of(Shape.COVERED, Point.MID_SCAN),
                Arguments.of(Shape.COVERED, Point.BEFORE_POPULATION_COMMIT),
                Arguments.of(Shape.FUNCTIONAL, Point.MID_SCAN),
                Arguments.of(Shape.IMMUTABLE_TABLE, Point.MID_SCAN));
    }

    @AfterEach
    void restoreHooks() {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
    }

    @ParameterizedTest(name = "{0} index, build held at {1}")
    @MethodSource("builds")
    void indexBuiltUnderConcurrentWritersMatchesTheTableExactly(Shape shape, Point point) throws Exception {
        String table = SharedStack.uniqueTable("LIVE");
        String index = table + "_IDX";
        createTableWith300Rows(table, shape.tableOptions);
        Writers writers = new Writers(table, shape);
        AtomicReference<long[]> progressAtCommit = new AtomicReference<>();
        AtomicBoolean held = new AtomicBoolean();
        IndexBuildHooks.install(new IndexBuildHooks() {
            private volatile long fence = -1;

            @Override
            public void afterFence(String physicalTable, long fenceTs) {
                if (physicalTable.equals(table)) {
                    fence = fenceTs;
                    System.out.println("online index: fence of " + table + " at " + fenceTs);
                    holdAt(Point.AFTER_FENCE);
                }
            }

            @Override
            public void afterRowsScanned(long fenceTs, long rowsSoFar) {
                if (fenceTs == fence && rowsSoFar >= 50) {
                    holdAt(Point.MID_SCAN);
                }
            }

            @Override
            public void beforePopulationCommit(long fenceTs) {
                if (fenceTs == fence) {
                    IndexBuildProgress progress = IndexBuildProgress.running().get(fenceTs);
                    if (progress != null) {
                        progressAtCommit.set(new long[] {progress.getRowsScanned(), progress.getRowsWritten()});
                    }
                    holdAt(Point.BEFORE_POPULATION_COMMIT);
                }
            }

            private void holdAt(Point here) {
                if (here == point && held.compareAndSet(false, true)) {
                    writers.awaitMoreCommits(COMMITS_WHILE_HELD);
                }
            }
        });
        writers.start();
        writers.awaitMoreCommits(20); // writers are running before the index is created
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " " + shape.indexDefinition);
        }
        IndexBuildHooks.install(IndexBuildHooks.NONE);
        writers.awaitMoreCommits(30); // index maintenance by writers after the build
        writers.stop();

        assertTrue(held.get(), "the build reached " + point + " and was held there while writers committed");
        assertTrue(IndexBuildProgress.running().isEmpty(), "the population finished and dropped its metric");
        // Phoenix 5.2 populates on the client by default (server-side UPSERT SELECT is off): counted there.
        long[] progress = progressAtCommit.get();
        assertNotNull(progress, "the population's progress was registered until its commit");
        assertTrue(progress[0] >= 50, "rows scanned: " + progress[0]);
        if (shape == Shape.IMMUTABLE_TABLE) {
            assertTrue(progress[1] >= progress[0], "index rows written " + progress[1] + " of " + progress[0]);
        } else {
            assertEquals(progress[0], progress[1], "one index row written per data row scanned");
        }

        Map<Long, String> fromTable = IndexChecks.assertIndexEqualsTable(table, index, shape.columns);
        try (Connection c = SharedStack.connect()) {
            for (String v : new String[] {"v7", "v150", "w1", "w2"}) {
                String value = shape == Shape.FUNCTIONAL ? v.toUpperCase() : v;
                String query = "SELECT " + shape.columns + " FROM " + table + " WHERE " + shape.indexedExpression
                        + " = ?";
                assertTrue(IndexChecks.explain(c, query.replace("?", "'" + value + "'")).contains(index),
                        "the point query on " + shape.indexedExpression + " uses the index");
                try (PreparedStatement p = c.prepareStatement(query)) {
                    p.setString(1, value);
                    Map<Long, String> expected = new TreeMap<>();
                    fromTable.forEach((k, row) -> {
                        if (row.startsWith(value + "|")) {
                            expected.put(k, row);
                        }
                    });
                    assertEquals(expected, IndexChecks.rows(p), "point query on " + value);
                }
            }
        }
        System.out.printf("online index (%s, held at %s): %d commits, %d 523s seen by writers (conflicts, fence"
                + " aborts Phoenix did not replay, deletes refused for stale metadata)%n", shape, point,
                writers.commits(), writers.aborts());
    }

    /**
     * A region server populating an index while its transactional tables serve other work yields to that work
     * (PopulationPacer, issue 16: writers kept 0.63x of their rate during a live build): a point SELECT of the table,
     * run from inside the population right before its first batch of index rows, is seen by the region observer as
     * other work, and the population pauses after the batch. The index still equals the table.
     */
    @Test
    void aPopulationPausesForOtherWorkOnItsRegionServerAndTheIndexStillEqualsTheTable() throws Exception {
        String table = SharedStack.uniqueTable("PACED");
        String index = table + "_IDX";
        createTableWith300Rows(table, "");
        AtomicBoolean fenced = new AtomicBoolean();
        AtomicInteger otherWork = new AtomicInteger();
        AtomicReference<Throwable> otherWorkFailed = new AtomicReference<>();
        IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterFence(String physicalTable, long fence) {
                if (physicalTable.equals(table)) {
                    fenced.set(true);
                }
            }

            @Override
            public void beforeRegionBatchWrite(long version, int rows) {
                if (fenced.get() && otherWork.getAndIncrement() == 0) {
                    try (Connection c = SharedStack.connect(); Statement s = c.createStatement();
                         java.sql.ResultSet r = s.executeQuery("SELECT N FROM " + table + " WHERE K = 7")) {
                        assertTrue(r.next());
                        c.commit();
                    } catch (Throwable t) {
                        otherWorkFailed.set(t);
                    }
                }
            }
        });
        long pausedBefore = PopulationPacer.shared().pausedNanos();
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        } finally {
            IndexBuildHooks.install(IndexBuildHooks.NONE);
        }
        if (otherWorkFailed.get() != null) {
            throw new AssertionError("the SELECT during the population failed", otherWorkFailed.get());
        }
        assertTrue(otherWork.get() >= 1, "the population wrote index rows on the region server");
        assertTrue(PopulationPacer.shared().pausedNanos() > pausedBefore,
                "the population paused after the batch that the SELECT ran beside");
        IndexChecks.assertIndexEqualsTable(table, index, "K, V, N");
    }

    @Test
    void aRegionIsScannedInOneRangePerGuidepostAndTheIndexStillEqualsTheTable() throws Exception {
        String table = SharedStack.uniqueTable("GUIDED");
        String index = table + "_IDX";
        createTableWith300Rows(table, ", GUIDE_POSTS_WIDTH=2000"); // one region
        collectStatistics(table); // what a major compaction collects: a guidepost per 2,000 bytes
        AtomicInteger regions = new AtomicInteger();
        AtomicInteger ranges = new AtomicInteger();
        IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterRowsScanned(long fence, long rowsSoFar) {
                IndexBuildProgress progress = IndexBuildProgress.running().get(fence);
                if (progress != null && progress.getDataTable().equals(table)) {
                    regions.set(progress.getRegionsTotal());
                    ranges.set(progress.getRangesTotal());
                }
            }
        });
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        } finally {
            IndexBuildHooks.install(IndexBuildHooks.NONE);
        }
        assertEquals(1, regions.get(), "the table has one region");
        assertTrue(ranges.get() > 1, "the region was cut at its guideposts into parallel ranges: " + ranges.get());
        IndexChecks.assertIndexEqualsTable(table, index, "K, V, N");
    }

    /**
     * UPDATE STATISTICS, and waits for it: Phoenix collects in the background by default
     * (phoenix.update.stats.command.async) and clears the client's statistics cache at once, so a statement right
     * after it could cache "no guideposts". Waits until SYSTEM.STATS holds the table's rows and their count stays
     * put between two reads, then clears that cache entry.
     */
    private static void collectStatistics(String table) throws Exception {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("UPDATE STATISTICS " + table);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long seen = -1;
            while (true) {
                long now = statisticsRows(s, table);
                if (now > 0 && now == seen) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "statistics of " + table + " still being collected");
                seen = now;
                TimeUnit.MILLISECONDS.sleep(200); // a poll interval: Phoenix offers nothing to wait on
            }
            c.unwrap(org.apache.phoenix.jdbc.PhoenixConnection.class).getQueryServices().invalidateStats(
                    new org.apache.phoenix.schema.stats.GuidePostsKey(org.apache.hadoop.hbase.util.Bytes.toBytes(table),
                            org.apache.phoenix.query.QueryConstants.DEFAULT_COLUMN_FAMILY_BYTES));
        }
    }

    private static long statisticsRows(Statement s, String table) throws SQLException {
        try (java.sql.ResultSet r = s.executeQuery(
                "SELECT COUNT(*) FROM SYSTEM.STATS WHERE PHYSICAL_NAME = '" + table + "'")) {
            return r.next() ? r.getLong(1) : 0;
        }
    }

    /** A transactional table (K, V, N) with rows 0..299 committed: V = 'v<k>', N = k. */
    private static void createTableWith300Rows(String table, String tableOptions) throws SQLException {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true"
                    + tableOptions);
            c.setAutoCommit(false);
            for (int k = 0; k < 300; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "', " + k + ")");
            }
            c.commit();
        }
    }

    @Test
    void localIndexOnATransactionalTableIsRefusedWithPhoenixsError() throws Exception {
        String table = SharedStack.uniqueTable("NOLOCAL");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            SQLException e = assertThrows(SQLException.class,
                    () -> s.execute("CREATE LOCAL INDEX " + table + "_L ON " + table + " (V)"));
            assertEquals(10948, e.getErrorCode(), e.toString()); // CANNOT_CREATE_LOCAL_INDEX_FOR_TXN_TABLE
            assertTrue(e.getMessage().contains("Local indexes cannot be created for"), e.getMessage());
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'a')");
            assertEquals(1, IndexChecks.count(c, table), "the table is untouched and writable");
        }
    }

    /** Writer threads that upsert, update and delete random rows in transactions until stopped. */
    private static final class Writers {
        private final String table;
        private final Shape shape;
        private final ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        private final List<Future<?>> running = new ArrayList<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong nextNewKey = new AtomicLong(10_000);
        private final Object progress = new Object();
        private long commits;
        private long aborts;

        Writers(String table, Shape shape) {
            this.table = table;
            this.shape = shape;
        }

        void start() {
            for (int w = 0; w < WRITERS; w++) {
                // One writer is another client (own metadata cache, as another JVM): Phoenix replays its fenced
                // upserts; its deletes compiled without the index are refused (523) and retried by the loop.
                boolean anotherClient = w == 0;
                running.add(pool.submit(() -> {
                    try (Connection c = anotherClient ? SharedStack.connectAsAnotherClient() : SharedStack.connect()) {
                        c.setAutoCommit(false);
                        while (!stop.get()) {
                            writeOnce(c);
                        }
                    }
                    return null;
                }));
            }
        }

        private void writeOnce(Connection c) throws SQLException {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            long k = r.nextInt(KEYS);
            try (Statement s = c.createStatement()) {
                int op = r.nextInt(10);
                if (op < 2) {
                    s.executeUpdate("DELETE FROM " + table + " WHERE K = " + k);
                } else if (shape == Shape.IMMUTABLE_TABLE) {
                    // Immutable rows are written once: new keys only.
                    s.executeUpdate("UPSERT INTO " + table + " VALUES (" + nextNewKey.getAndIncrement() + ", 'w"
                            + r.nextInt(5) + "', " + r.nextInt(1000) + ")");
                } else if (op < 5) {
                    s.executeUpdate("UPSERT INTO " + table + " (K, N) VALUES (" + k + ", " + r.nextInt(1000) + ")");
                } else {
                    s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'w" + r.nextInt(5) + "', "
                            + r.nextInt(1000) + ")");
                }
                c.commit();
                counted(true);
            } catch (SQLException e) {
                c.rollback();
                if (e.getErrorCode() != 523) {
                    throw e;
                }
                counted(false);
            }
        }

        private void counted(boolean committed) {
            synchronized (progress) {
                if (committed) {
                    commits++;
                } else {
                    aborts++;
                }
                progress.notifyAll();
            }
        }

        /** Waits until the writers committed {@code more} transactions from now (fails if a writer died). */
        void awaitMoreCommits(int more) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            synchronized (progress) {
                long target = commits + more;
                while (commits < target) {
                    failIfAWriterDied();
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new AssertionError("writers made " + (commits - target + more) + " of " + more
                                + " commits in 2 minutes");
                    }
                    try {
                        progress.wait(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 1_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new AssertionError(e);
                    }
                }
            }
        }

        private void failIfAWriterDied() {
            for (Future<?> f : running) {
                if (f.isDone()) {
                    try {
                        f.get();
                        throw new AssertionError("a writer stopped early");
                    } catch (Exception e) {
                        throw new AssertionError("a writer failed", e);
                    }
                }
            }
        }

        void stop() throws Exception {
            stop.set(true);
            for (Future<?> f : running) {
                f.get(1, TimeUnit.MINUTES);
            }
            pool.shutdown();
        }

        long commits() {
            synchronized (progress) {
                return commits;
            }
        }

        long aborts() {
            synchronized (progress) {
                return aborts;
            }
        }
    }
}
