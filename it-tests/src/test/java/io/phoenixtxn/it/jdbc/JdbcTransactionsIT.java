package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.jdbc.Sql.commitAll;
import static io.phoenixtxn.it.jdbc.Sql.longOf;
import static io.phoenixtxn.it.jdbc.Sql.longs;
import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.stringOrNull;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The everyday SQL surface of transactional tables through Phoenix and our provider: read-your-own-writes,
 * snapshot stability, autocommit, DELETE and UPSERT SELECT, multi-table atomicity, conflicts, rollback, and
 * aggregates that the region server computes inside the snapshot.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JdbcTransactionsIT {
    private static final String COLUMNS = "K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT";

    @BeforeAll
    static void stack() {
        SharedStack.get();
    }

    @Test
    void readsItsOwnWritesInsideATransactionAndNobodyElseDoes() throws SQLException {
        String t = Sql.createTable("RYOW", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (1, 'one', 10)");
        try (Connection writer = open(false); Connection other = open(false)) {
            assertEquals(10, longOf(other, "SELECT SUM(N) FROM " + t)); // other's snapshot begins first
            update(writer, "UPSERT INTO " + t + " VALUES (2, 'two', 20)");
            update(writer, "UPSERT INTO " + t + " VALUES (1, 'uno', 11)");
            assertEquals("uno", stringOrNull(writer, "SELECT V FROM " + t + " WHERE K = 1"), "point read");
            assertEquals(List.of(1L, 2L), longs(writer, "SELECT K FROM " + t + " ORDER BY K"), "scan");
            assertEquals(31, longOf(writer, "SELECT SUM(N) FROM " + t), "server-side aggregate");
            assertEquals(1, update(writer, "DELETE FROM " + t + " WHERE K = 2"));
            assertNull(stringOrNull(writer, "SELECT V FROM " + t + " WHERE K = 2"), "own delete");
            assertEquals(1, longOf(writer, "SELECT COUNT(*) FROM " + t));
            update(writer, "UPSERT INTO " + t + " VALUES (3, 'three', 22)");
            assertEquals("three", stringOrNull(writer, "SELECT V FROM " + t + " WHERE K = 3"));
            // (re-inserting row 2 here is a known issue: JdbcKnownIssuesIT)

            assertEquals("one", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"));
            assertNull(stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 2"));
            assertEquals(10, longOf(other, "SELECT SUM(N) FROM " + t));

            writer.commit();
            assertEquals("one", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"),
                    "a commit after other's snapshot began stays invisible to it");
            other.commit();
            assertEquals("uno", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"));
            assertNull(stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 2"));
            assertEquals("three", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 3"));
            assertEquals(33, longOf(other, "SELECT SUM(N) FROM " + t));
        }
    }

    @Test
    void snapshotIsStableAcrossStatementsOfOneTransaction() throws SQLException {
        String t = Sql.createTable("STABLE", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (1, 'a', 10)", "UPSERT INTO " + t + " VALUES (2, 'b', 10)",
                "UPSERT INTO " + t + " VALUES (3, 'c', 10)");
        try (Connection reader = open(false); Connection writer = open(true)) {
            assertEquals(30, longOf(reader, "SELECT SUM(N) FROM " + t)); // the snapshot
            update(writer, "UPSERT INTO " + t + " VALUES (1, 'a2', 100)");
            update(writer, "UPSERT INTO " + t + " VALUES (4, 'd', 40)");
            update(writer, "DELETE FROM " + t + " WHERE K = 3");
            for (int round = 0; round < 3; round++) {
                assertEquals("a", stringOrNull(reader, "SELECT V FROM " + t + " WHERE K = 1"), "round " + round);
                assertEquals(10, longOf(reader, "SELECT N FROM " + t + " WHERE K = 1"));
                assertEquals("c", stringOrNull(reader, "SELECT V FROM " + t + " WHERE K = 3"));
                assertNull(stringOrNull(reader, "SELECT V FROM " + t + " WHERE K = 4"));
                assertEquals(List.of(1L, 2L, 3L), longs(reader, "SELECT K FROM " + t + " ORDER BY K"));
                assertEquals(List.of(2L, 3L), longs(reader, "SELECT K FROM " + t + " WHERE K BETWEEN 2 AND 4"));
                assertEquals(3, longOf(reader, "SELECT COUNT(*) FROM " + t));
                assertEquals(30, longOf(reader, "SELECT SUM(N) FROM " + t));
                update(writer, "UPSERT INTO " + t + " VALUES (2, 'b" + round + "', " + (11 + round) + ")");
            }
            reader.commit();
            assertEquals(List.of(1L, 2L, 4L), longs(reader, "SELECT K FROM " + t + " ORDER BY K"));
            assertEquals(100 + 13 + 40, longOf(reader, "SELECT SUM(N) FROM " + t));
            assertEquals("b2", stringOrNull(reader, "SELECT V FROM " + t + " WHERE K = 2"));
        }
    }

    @Test
    void autocommitMakesEveryStatementItsOwnTransaction() throws SQLException {
        String t = Sql.createTable("AUTO", COLUMNS);
        try (Connection auto = open(true); Connection manual = open(false)) {
            assertEquals(1, update(auto, "UPSERT INTO " + t + " VALUES (1, 'x', 1)"));
            assertFalse(Sql.phoenix(auto).getMutationState().isTransactionStarted(),
                    "no transaction is left running after an autocommit statement");
            assertEquals("x", stringOrNull(manual, "SELECT V FROM " + t + " WHERE K = 1"), "committed at once");

            assertEquals(1, update(auto, "UPSERT INTO " + t + " SELECT K + 10, V, N FROM " + t));
            assertEquals(1, update(auto, "DELETE FROM " + t + " WHERE K = 1"));
            assertEquals(List.of(1L), longs(manual, "SELECT K FROM " + t), "manual keeps its snapshot");
            manual.commit();
            assertEquals(List.of(11L), longs(manual, "SELECT K FROM " + t));

            // manual's transaction began before auto's statement and writes the same row: first committer wins.
            update(manual, "UPSERT INTO " + t + " VALUES (11, 'manual', 2)");
            assertEquals(1, update(auto, "UPSERT INTO " + t + " VALUES (11, 'auto', 3)"));
            SQLException e = assertThrows(SQLException.class, manual::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
            assertEquals("auto", stringOrNull(manual, "SELECT V FROM " + t + " WHERE K = 11"));
        }
    }

    @Test
    void deleteAndUpsertSelectAreTransactional() throws SQLException {
        String src = Sql.createTable("DEL_SRC", COLUMNS);
        String dst = Sql.createTable("DEL_DST", COLUMNS);
        try (Connection c = open(false)) {
            for (int k = 1; k <= 10; k++) {
                update(c, "UPSERT INTO " + src + " VALUES (" + k + ", 'v" + k + "', " + k + ")");
            }
            c.commit();
        }
        try (Connection tx = open(false); Connection observer = open(false)) {
            assertEquals(10, longOf(observer, "SELECT COUNT(*) FROM " + src));
            assertEquals(3, update(tx, "DELETE FROM " + src + " WHERE N > 7"));
            assertEquals(7, longOf(tx, "SELECT COUNT(*) FROM " + src));
            assertEquals(5, update(tx, "UPSERT INTO " + dst + " SELECT K, V, N * 2 FROM " + src + " WHERE N > 2"));
            assertEquals(50, longOf(tx, "SELECT SUM(N) FROM " + dst));
            assertEquals(2, update(tx, "UPSERT INTO " + src + " (K, V, N) SELECT K + 100, V, N FROM " + src
                    + " WHERE K <= 2"));
            assertEquals(1, update(tx, "DELETE FROM " + dst + " WHERE K IN (SELECT K FROM " + src + " WHERE N = 3)"));
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 101L, 102L),
                    longs(tx, "SELECT K FROM " + src + " ORDER BY K"));
            assertEquals(List.of(4L, 5L, 6L, 7L), longs(tx, "SELECT K FROM " + dst + " ORDER BY K"));

            assertEquals(10, longOf(observer, "SELECT COUNT(*) FROM " + src), "uncommitted deletes are invisible");
            assertEquals(0, longOf(observer, "SELECT COUNT(*) FROM " + dst));
            tx.commit();
            observer.commit();
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 101L, 102L),
                    longs(observer, "SELECT K FROM " + src + " ORDER BY K"));
            assertEquals(44, longOf(observer, "SELECT SUM(N) FROM " + dst));

            // A DELETE of everything, rolled back, removes nothing.
            assertEquals(4, update(tx, "DELETE FROM " + dst));
            assertEquals(0, longOf(tx, "SELECT COUNT(*) FROM " + dst));
            tx.rollback();
            assertEquals(List.of(4L, 5L, 6L, 7L), longs(tx, "SELECT K FROM " + dst + " ORDER BY K"));
        }
    }

    @Test
    void aTransactionOverTwoTablesCommitsOrAbortsAsAWhole() throws SQLException {
        String orders = Sql.createTable("ORDERS", "ID BIGINT PRIMARY KEY, CUSTOMER VARCHAR, TOTAL BIGINT");
        String lines = Sql.createTable("LINES", "ORDER_ID BIGINT NOT NULL, LINE INTEGER NOT NULL, AMOUNT BIGINT"
                + " CONSTRAINT PK PRIMARY KEY (ORDER_ID, LINE)");
        String join = "SELECT O.ID, SUM(L.AMOUNT) FROM " + orders + " O JOIN " + lines
                + " L ON O.ID = L.ORDER_ID GROUP BY O.ID ORDER BY O.ID";
        try (Connection tx = open(false); Connection observer = open(false)) {
            assertEquals(0, longOf(observer, "SELECT COUNT(*) FROM " + orders));
            update(tx, "UPSERT INTO " + orders + " VALUES (1, 'ann', 30)");
            update(tx, "UPSERT INTO " + lines + " VALUES (1, 1, 10)");
            update(tx, "UPSERT INTO " + lines + " VALUES (1, 2, 20)");
            assertEquals(Map.of(1L, 30L), Sql.pairs(tx, join), "the transaction joins its own rows");
            assertEquals(Map.of(), Sql.pairs(observer, join));
            assertEquals(0, longOf(observer, "SELECT COUNT(*) FROM " + lines));
            tx.commit();
            observer.commit();
            assertEquals(Map.of(1L, 30L), Sql.pairs(observer, join));
            assertEquals(30, longOf(observer, "SELECT TOTAL FROM " + orders + " WHERE ID = 1"));
            observer.commit();
        }
        // A conflict on one table aborts the writes to the other as well.
        try (Connection a = open(false); Connection b = open(false)) {
            update(a, "UPSERT INTO " + orders + " VALUES (2, 'bob', 5)");
            update(a, "UPSERT INTO " + lines + " VALUES (2, 1, 5)");
            update(b, "UPSERT INTO " + lines + " VALUES (2, 1, 7)");
            b.commit();
            SQLException e = assertThrows(SQLException.class, a::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
            assertEquals("42900", e.getSQLState());
            assertNull(Sql.longOrNull(a, "SELECT TOTAL FROM " + orders + " WHERE ID = 2"),
                    "the order row of the aborted transaction is gone too");
            assertEquals(7, longOf(a, "SELECT AMOUNT FROM " + lines + " WHERE ORDER_ID = 2 AND LINE = 1"));
        }
    }

    @Test
    void conflictingWritesFromTwoConnectionsLetOnlyTheFirstCommit() throws SQLException {
        String t = Sql.createTable("CONFLICT", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (1, 'x', 100)");
        try (Connection a = open(false); Connection b = open(false)) {
            long na = longOf(a, "SELECT N FROM " + t + " WHERE K = 1");
            long nb = longOf(b, "SELECT N FROM " + t + " WHERE K = 1");
            update(a, "UPSERT INTO " + t + " VALUES (1, 'a', " + (na + 10) + ")");
            update(a, "UPSERT INTO " + t + " VALUES (2, 'a-only', 0)");
            update(b, "UPSERT INTO " + t + " VALUES (1, 'b', " + (nb + 20) + ")");
            update(b, "UPSERT INTO " + t + " VALUES (3, 'b-only', 0)");
            a.commit();
            SQLException e = assertThrows(SQLException.class, b::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
            assertEquals("42900", e.getSQLState());
            assertTrue(e.getMessage().toLowerCase().contains("conflict"), e.getMessage());

            // b's whole transaction is gone; its next statement runs in a new one that sees a's commit.
            assertNull(stringOrNull(b, "SELECT V FROM " + t + " WHERE K = 3"));
            long retry = longOf(b, "SELECT N FROM " + t + " WHERE K = 1");
            assertEquals(110, retry);
            update(b, "UPSERT INTO " + t + " VALUES (1, 'b', " + (retry + 20) + ")");
            b.commit();

            // Disjoint rows do not conflict.
            update(a, "UPSERT INTO " + t + " VALUES (4, 'a', 4)");
            update(b, "UPSERT INTO " + t + " VALUES (5, 'b', 5)");
            a.commit();
            b.commit();
        }
        try (Connection check = open(false)) {
            assertEquals(130, longOf(check, "SELECT N FROM " + t + " WHERE K = 1"), "no update was lost");
            assertEquals(List.of(1L, 2L, 4L, 5L), longs(check, "SELECT K FROM " + t + " ORDER BY K"));
        }
    }

    @Test
    void rollbackDiscardsEveryWriteOfTheTransaction() throws Exception {
        String t1 = Sql.createTable("RB1", COLUMNS);
        String t2 = Sql.createTable("RB2", COLUMNS);
        commitAll("UPSERT INTO " + t1 + " VALUES (1, 'one', 1)", "UPSERT INTO " + t1 + " VALUES (2, 'two', 2)",
                "UPSERT INTO " + t2 + " VALUES (1, 'uno', 1)");
        List<String> before1;
        List<String> before2;
        try (Connection c = open(false)) {
            before1 = Sql.rows(c, "SELECT * FROM " + t1 + " ORDER BY K");
            before2 = Sql.rows(c, "SELECT * FROM " + t2 + " ORDER BY K");
        }
        try (Connection tx = open(false)) {
            update(tx, "UPSERT INTO " + t1 + " VALUES (3, 'three', 3)");
            update(tx, "UPSERT INTO " + t1 + " VALUES (1, 'changed', 100)");
            update(tx, "DELETE FROM " + t1 + " WHERE K = 2");
            update(tx, "UPSERT INTO " + t2 + " SELECT K + 10, V, N FROM " + t1);
            update(tx, "DELETE FROM " + t2 + " WHERE K = 1");
            assertEquals(List.of(1L, 3L), longs(tx, "SELECT K FROM " + t1 + " ORDER BY K"));
            assertEquals(List.of(11L, 13L), longs(tx, "SELECT K FROM " + t2 + " ORDER BY K"));
            long txId = Sql.context(tx).getTransactionId();
            assertFalse(Sql.cellsOfTransaction(t1, txId).isEmpty(), "the writes reached HBase as tentative cells");
            tx.rollback();
            assertTrue(Sql.cellsOfTransaction(t1, txId).isEmpty(), "rollback removed every tentative cell");
            assertTrue(Sql.cellsOfTransaction(t2, txId).isEmpty());
            assertEquals(before1, Sql.rows(tx, "SELECT * FROM " + t1 + " ORDER BY K"));
            assertEquals(before2, Sql.rows(tx, "SELECT * FROM " + t2 + " ORDER BY K"));
            tx.commit();
            // The connection goes on normally.
            update(tx, "UPSERT INTO " + t1 + " VALUES (4, 'four', 4)");
            tx.commit();
        }
        try (Connection check = open(false)) {
            assertEquals(List.of(1L, 2L, 4L), longs(check, "SELECT K FROM " + t1 + " ORDER BY K"));
            assertEquals("one", stringOrNull(check, "SELECT V FROM " + t1 + " WHERE K = 1"));
            assertEquals(before2, Sql.rows(check, "SELECT * FROM " + t2 + " ORDER BY K"));
        }
    }

    /**
     * COUNT/SUM/MIN/MAX and GROUP BY run in Phoenix's aggregate observers on the region server, over the cells our
     * observer lets through: they see the snapshot, not later commits nor pending writes.
     */
    @Test
    void aggregatesComputedOnTheServerSeeOnlyTheSnapshot() throws SQLException {
        String t = Sql.createTable("AGG", "K BIGINT PRIMARY KEY, G INTEGER, N BIGINT");
        Map<Long, long[]> model = new TreeMap<>(); // K -> {G, N}
        try (Connection c = open(false)) {
            for (long k = 1; k <= 20; k++) {
                update(c, "UPSERT INTO " + t + " VALUES (" + k + ", " + (k % 4) + ", " + k + ")");
                model.put(k, new long[] {k % 4, k});
            }
            c.commit();
        }
        String single = "SELECT COUNT(*), SUM(N), MIN(N), MAX(N), COUNT(DISTINCT G) FROM " + t;
        String grouped = "SELECT G, SUM(N) FROM " + t + " GROUP BY G ORDER BY G";
        try (Connection reader = open(false); Connection pending = open(false); Connection auto = open(true)) {
            assertTrue(Sql.explain(reader, single).contains("SERVER AGGREGATE INTO SINGLE ROW"),
                    Sql.explain(reader, single));
            assertTrue(Sql.explain(reader, grouped).contains("SERVER AGGREGATE INTO"), Sql.explain(reader, grouped));
            List<String> expectedSingle = List.of(singleRow(model));
            Map<Long, Long> expectedGroups = groups(model);
            assertEquals(expectedSingle, Sql.rows(reader, single)); // reader's snapshot begins here

            update(pending, "UPSERT INTO " + t + " VALUES (100, 0, 1000)");
            update(pending, "UPSERT INTO " + t + " VALUES (1, 1, 500)");
            update(pending, "DELETE FROM " + t + " WHERE K = 20");
            assertEquals(20, longOf(pending, "SELECT COUNT(*) FROM " + t)); // its writes are now cells in HBase
            update(auto, "UPSERT INTO " + t + " VALUES (200, 3, 7)");
            update(auto, "DELETE FROM " + t + " WHERE K = 19");

            assertEquals(expectedSingle, Sql.rows(reader, single), "pending and later-committed writes excluded");
            assertEquals(expectedGroups, Sql.pairs(reader, grouped));
            pending.commit();
            assertEquals(expectedSingle, Sql.rows(reader, single));
            assertEquals(expectedGroups, Sql.pairs(reader, grouped));

            reader.commit();
            model.put(100L, new long[] {0, 1000});
            model.put(1L, new long[] {1, 500});
            model.remove(20L);
            model.put(200L, new long[] {3, 7});
            model.remove(19L);
            assertEquals(List.of(singleRow(model)), Sql.rows(reader, single), "a new snapshot sees both commits");
            assertEquals(groups(model), Sql.pairs(reader, grouped));
            reader.commit();

            // A writer that began before the reader and is still pending when the reader meets its cells: the
            // reader never counts them. Whether the writer may still commit depends on what the region server
            // knows: with the TM at hand (this stack) an undecided writer is spared, since its commit timestamp
            // will follow the reader's start; without, the reader waits briefly and invalidates it (Omid LL).
            update(pending, "UPSERT INTO " + t + " VALUES (300, 2, 9999)");
            assertEquals(model.size() + 1, longOf(pending, "SELECT COUNT(*) FROM " + t));
            List<String> beforeWriterEnds = Sql.rows(reader, single);
            Map<Long, Long> groupsBeforeWriterEnds = Sql.pairs(reader, grouped);
            assertEquals(List.of(singleRow(model)), beforeWriterEnds);
            assertEquals(groups(model), groupsBeforeWriterEnds);
            try {
                pending.commit();
                model.put(300L, new long[] {2, 9999});
            } catch (SQLException e) {
                assertEquals(523, e.getErrorCode(), e.toString());
            }
            assertEquals(beforeWriterEnds, Sql.rows(reader, single), "the reader's snapshot did not move");
            assertEquals(groupsBeforeWriterEnds, Sql.pairs(reader, grouped));
            reader.commit();
            assertEquals(List.of(singleRow(model)), Sql.rows(reader, single), "the writer's outcome, all or nothing");
            assertEquals(groups(model), Sql.pairs(reader, grouped));
        }
    }

    private static String singleRow(Map<Long, long[]> model) {
        long sum = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        Set<Long> distinct = new HashSet<>();
        for (long[] row : model.values()) {
            sum += row[1];
            min = Math.min(min, row[1]);
            max = Math.max(max, row[1]);
            distinct.add(row[0]);
        }
        return model.size() + "|" + sum + "|" + min + "|" + max + "|" + distinct.size();
    }

    private static Map<Long, Long> groups(Map<Long, long[]> model) {
        Map<Long, Long> out = new TreeMap<>();
        for (long[] row : model.values()) {
            out.merge(row[0], row[1], Long::sum);
        }
        return new LinkedHashMap<>(out);
    }
}
