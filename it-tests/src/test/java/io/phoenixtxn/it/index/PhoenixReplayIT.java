package io.phoenixtxn.it.index;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.AbortReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.phoenixtxn.it.index.IndexChecks.assertIndexEqualsTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Phoenix's commit retry (MutationState.commit) re-sends the mutations of a transaction that failed with 523 in a
 * new transaction when its tables gained an index meanwhile, or when they are all immutable. The mutations were
 * computed from the failed transaction's snapshot, so the replay must be validated for write-write conflicts from
 * the failed transaction's start, or a commit that landed in between is lost (review finding: client A reads 100
 * and writes 100-10, client B commits 50, CREATE INDEX fences, A is fenced and replayed, the table ends at 90).
 * Client A here always has a Phoenix connection service of its own (its metadata cache has not seen the index, as
 * in another JVM), which is what makes Phoenix replay.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PhoenixReplayIT {
    private static final long SECONDS = 60;
    private String table;
    private String index;
    private final List<AbortReason> aborts = new CopyOnWriteArrayList<>();

    @BeforeEach
    void createTable() throws SQLException {
        table = SharedStack.uniqueTable("REPLAY");
        index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            c.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one', 100)");
            c.commit();
        }
    }

    @AfterEach
    void restoreHooks() {
        ProtocolHooks.install(ProtocolHooks.NONE);
    }

    /**
     * A is fenced (no conflict yet), then B commits before Phoenix's replay of A reaches the TM. Validated from its
     * own new start the replay would commit 90 over B's 50; validated from A's start it conflicts, Phoenix gives up
     * (its cache now holds the index) and the application sees 523, then retries from a fresh read.
     */
    @Test
    void aReplayCannotOverwriteACommitThatLandedAfterTheFencedTransactionRead() throws Exception {
        AtomicBoolean bCommitted = new AtomicBoolean();
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmAbort(long txId, AbortReason reason) {
                aborts.add(reason);
                if (reason == AbortReason.FENCE && bCommitted.compareAndSet(false, true)) {
                    onAnotherThread(() -> subtractInAnotherTransaction(50)); // B: 100 - 50
                }
            }
        });
        try (Connection a = SharedStack.connectAsAnotherClient()) {
            a.setAutoCommit(false);
            long read = readN(a);
            assertEquals(100, read);
            setN(a, read - 10);
            createIndex();
            SQLException e = assertThrows(SQLException.class, a::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
            assertTrue(bCommitted.get());
            assertEquals(List.of(AbortReason.FENCE, AbortReason.CONFLICT), aborts,
                    "A fenced, then Phoenix's replay of A conflicts with B");
            assertEquals(50, committedN(), "B's commit survives");
            a.rollback();
            subtractFrom(a, 10); // the application's retry, from a fresh read
        }
        assertEquals(40, committedN());
        assertIndexEqualsTable(table, index, "K, V, N");
    }

    /** Fenced and in conflict at once: the TM says CONFLICT, and Phoenix's replay conflicts too. */
    @Test
    void aFencedTransactionThatConflictsIsNeverReplayedIntoACommit() throws Exception {
        recordAborts();
        try (Connection a = SharedStack.connectAsAnotherClient()) {
            a.setAutoCommit(false);
            setN(a, readN(a) - 10);
            subtractInAnotherTransaction(50); // B commits after A's start
            createIndex();
            SQLException e = assertThrows(SQLException.class, a::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
            assertTrue(e.getMessage().contains("a concurrent transaction committed a write to the same row"),
                    e.getMessage());
            assertEquals(List.of(AbortReason.CONFLICT, AbortReason.CONFLICT), aborts,
                    "the fenced attempt conflicts, and so does Phoenix's replay");
            assertEquals(50, committedN());
        }
        assertIndexEqualsTable(table, index, "K, V, N");
    }

    /**
     * After any 523 Phoenix begins the next transaction at once; when it does not replay, the application works
     * in that transaction. Its first statement makes it the application's own: its conflicts count from its own
     * start, so a retry that read fresh data, or writes blindly, commits (a replay window kept here would fail
     * every such retry against the very commit that caused the 523).
     */
    @Test
    void anApplicationRetryWithoutRollbackAfterAConflictCommits() throws Exception {
        recordAborts();
        try (Connection a = SharedStack.connectAsAnotherClient()) {
            a.setAutoCommit(false);
            setN(a, readN(a) - 10);
            subtractInAnotherTransaction(50);
            assertEquals(523, assertThrows(SQLException.class, a::commit).getErrorCode());
            subtractFrom(a, 10); // no rollback: continues in the transaction Phoenix began
            assertEquals(40, committedN());

            setN(a, readN(a) - 1);
            subtractInAnotherTransaction(1);
            assertEquals(523, assertThrows(SQLException.class, a::commit).getErrorCode());
            setN(a, 7); // blind write, no rollback
            a.commit();
        }
        assertEquals(7, committedN());
        assertEquals(List.of(AbortReason.CONFLICT, AbortReason.CONFLICT), aborts);
    }

    /**
     * Phoenix replays a fenced transaction whose tables are all immutable, whatever its cache says. Immutable rows
     * are written without conflict detection, so the replay commits, with the new index maintained.
     */
    @Test
    void aFencedWriterOfAnImmutableTableIsReplayedWithTheNewIndex() throws Exception {
        String immutable = SharedStack.uniqueTable("IMMREPLAY");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + immutable + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true,"
                    + " IMMUTABLE_ROWS=true");
        }
        recordAborts();
        try (Connection a = SharedStack.connect(); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + immutable + " VALUES (1, 'early', 1)");
            try (Connection creator = SharedStack.connectAsAnotherClient(); Statement ddl = creator.createStatement()) {
                ddl.execute("CREATE INDEX " + immutable + "_IDX ON " + immutable + " (V) INCLUDE (N)");
            }
            a.commit();
        }
        assertEquals(List.of(AbortReason.FENCE), aborts, "fenced once, then the replay committed");
        assertEquals("early|1", assertIndexEqualsTable(immutable, immutable + "_IDX", "K, V, N").get(1L));
    }

    // ---- plumbing

    private void recordAborts() {
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmAbort(long txId, AbortReason reason) {
                aborts.add(reason);
            }
        });
    }

    private interface Work {
        void run() throws Exception;
    }

    /** Runs work on another thread and waits: the hook that calls this runs inside a commit in progress. */
    private static void onAnotherThread(Work work) {
        CompletableFuture.runAsync(() -> {
            try {
                work.run();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }).orTimeout(SECONDS, TimeUnit.SECONDS).join();
    }

    private void createIndex() throws SQLException {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
        }
    }

    private long readN(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT N FROM " + table
                + " WHERE K = 1")) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private void setN(Connection c, long n) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'n" + n + "', " + n + ")");
        }
    }

    /** A read-modify-write of N on {@code c}, committed. */
    private void subtractFrom(Connection c, long amount) throws SQLException {
        setN(c, readN(c) - amount);
        c.commit();
    }

    /** Client B: a read-modify-write of N in a connection of the index creator's service, committed. */
    private void subtractInAnotherTransaction(long amount) throws SQLException {
        try (Connection b = SharedStack.connect()) {
            b.setAutoCommit(false);
            subtractFrom(b, amount);
        }
    }

    private long committedN() throws SQLException {
        try (Connection c = SharedStack.connect()) {
            return readN(c);
        }
    }
}
