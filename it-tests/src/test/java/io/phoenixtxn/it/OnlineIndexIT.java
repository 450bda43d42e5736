package io.phoenixtxn.it;

import io.phoenixtxn.index.IndexBuildProgress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CREATE INDEX on a table that writers keep upserting, updating and deleting in transactions. The index is
 * populated from the snapshot at its fence and written at the fence; writers that began before the fence abort
 * (523) and retry; later writers maintain the index. Afterwards the index must equal the table row by row and
 * value by value, and queries through the index must return what a full scan returns.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class OnlineIndexIT {
    private static final int KEYS = 400;

    @Test
    void indexBuiltUnderConcurrentWritersMatchesTheTableExactly() throws Exception {
        String table = SharedStack.uniqueTable("LIVE");
        String index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            c.setAutoCommit(false);
            for (int k = 0; k < 300; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "', " + k + ")");
            }
            c.commit();
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger commits = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        CountDownLatch writing = new CountDownLatch(3 * 20);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            writers.add(pool.submit(() -> {
                try (Connection c = SharedStack.connect()) {
                    c.setAutoCommit(false);
                    while (!stop.get()) {
                        writeOnce(c, table, commits, conflicts);
                        writing.countDown();
                    }
                }
                return null;
            }));
        }
        assertTrue(writing.await(2, TimeUnit.MINUTES), "writers are running before the index is created");
        int commitsBefore = commits.get();
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        }
        int target = commits.get() + 60;
        while (commits.get() < target && writers.stream().noneMatch(Future::isDone)) {
            Thread.onSpinWait(); // writers commit continuously; we only need 60 more after the build
        }
        stop.set(true);
        for (Future<?> f : writers) {
            f.get(1, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertTrue(commits.get() > commitsBefore, "writes happened around the build");
        assertTrue(IndexBuildProgress.running().isEmpty(), "the population finished and dropped its metric");

        try (Connection c = SharedStack.connect()) {
            Map<Long, String> fromTable = rows(c, "SELECT /*+ NO_INDEX */ K, V, N FROM " + table);
            Map<Long, String> fromIndex = rows(c, "SELECT /*+ INDEX(" + table + " " + index + ") */ K, V, N FROM "
                    + table);
            assertEquals(fromTable, fromIndex, "index content differs from the table");
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + index)) {
                rs.next();
                assertEquals(fromTable.size(), rs.getInt(1), "the index holds no stale rows");
            }
            try (Statement s = c.createStatement();
                 ResultSet plan = s.executeQuery("EXPLAIN SELECT /*+ INDEX(" + table + " " + index + ") */ K, V, N"
                         + " FROM " + table)) {
                StringBuilder text = new StringBuilder();
                while (plan.next()) {
                    text.append(plan.getString(1)).append('\n');
                }
                assertTrue(text.toString().contains(index), "the hinted query reads the index:\n" + text);
            }
            for (String v : new String[] {"v7", "v150", "w1", "w2"}) {
                try (PreparedStatement p = c.prepareStatement("SELECT K, V, N FROM " + table + " WHERE V = ?")) {
                    p.setString(1, v);
                    Map<Long, String> viaIndex = rows(p);
                    Map<Long, String> expected = new TreeMap<>();
                    fromTable.forEach((k, row) -> {
                        if (row.startsWith(v + "|")) {
                            expected.put(k, row);
                        }
                    });
                    assertEquals(expected, viaIndex, "point query on V=" + v);
                }
            }
        }
        System.out.printf("online index: %d commits, %d conflicts (incl. fence aborts)%n", commits.get(),
                conflicts.get());
    }

    private static void writeOnce(Connection c, String table, AtomicInteger commits, AtomicInteger conflicts)
            throws SQLException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long k = r.nextInt(KEYS);
        try (Statement s = c.createStatement()) {
            int op = r.nextInt(10);
            if (op < 2) {
                s.executeUpdate("DELETE FROM " + table + " WHERE K = " + k);
            } else if (op < 5) {
                s.executeUpdate("UPSERT INTO " + table + " (K, N) VALUES (" + k + ", " + r.nextInt(1000) + ")");
            } else {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'w" + r.nextInt(5) + "', "
                        + r.nextInt(1000) + ")");
            }
            c.commit();
            commits.incrementAndGet();
        } catch (SQLException e) {
            c.rollback();
            if (e.getErrorCode() != 523) {
                throw e;
            }
            conflicts.incrementAndGet();
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
