package io.phoenixtxn.it.index;

import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DROP INDEX while clients of other connection services (other JVMs) hold metadata that still lists the index.
 * Phoenix computes a transaction's index rows at commit from the table as the statement resolved it, so a client
 * that buffered an UPSERT before another client's DROP INDEX sends index rows to a table that is gone. The index is
 * dropped; those rows have nowhere to be and nobody to be read by: the commit must succeed with the data rows
 * (measured before the fix: a failed commit per such transaction, RetriesExhaustedWithDetailsException on the
 * dropped index table).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DropIndexIT {
    private String table;
    private String index;

    @BeforeEach
    void createTableAndIndex() throws SQLException {
        table = SharedStack.uniqueTable("DROPIDX");
        index = table + "_V";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (N)");
            c.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one', 100)");
            c.commit();
        }
    }

    @Test
    void aTransactionBufferedBeforeAnotherClientDroppedTheIndexCommits() throws Exception {
        try (Connection a = SharedStack.connectAsAnotherClient(); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            assertEquals(100, n(s, 1), "A reads (its metadata lists the index)");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1, 'one', 90)");
            s.executeUpdate("UPSERT INTO " + table + " VALUES (2, 'two', 5)");
            dropIndexFromThisClient();
            a.commit(); // index maintenance for the dropped index: nowhere to go, and not an error
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            assertEquals(90, n(s, 1));
            assertEquals(5, n(s, 2));
        }
    }

    @Test
    void aTransactionOfTheDroppingClientsOwnServiceIsNotAffected() throws Exception {
        try (Connection a = SharedStack.connect(); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            s.executeUpdate("UPSERT INTO " + table + " VALUES (3, 'three', 7)");
            dropIndexFromThisClient();
            a.commit();
            assertEquals(7, n(s, 3));
        }
    }

    /**
     * Inside a transaction Phoenix resolves metadata as of its start, so a transaction that began before the DROP
     * keeps planning on the index, whose table is gone: Phoenix forces that failure. It comes as SQL error 523 naming
     * the dropped table and saying to retry, instead of a PhoenixIOException around HBase's TableNotFoundException
     * (seen before the fix: error code 101). The retry, a new transaction through the same connection service, plans
     * without the index: that service's cache lists the index on its data table until told (before that fix, every
     * retry failed at compile with Phoenix's own TABLE_UNDEFINED, 1012, naming the index).
     */
    @Test
    void aReadPlannedOnAnIndexDroppedAfterTheTransactionBeganIsARetryable523() throws Exception {
        try (Connection a = SharedStack.connectAsAnotherClient(); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            assertEquals(List.of(1L), keysWhereV(s, "one"), "through the index");
            dropIndexFromThisClient();
            SQLException e = assertThrows(SQLException.class, () -> keysWhereV(s, "one"));
            assertEquals(523, e.getErrorCode(), e.toString());
            assertTrue(e.getMessage().contains(index) && e.getMessage().contains("retry"), e.getMessage());
            a.rollback();
            assertEquals(List.of(1L), keysWhereV(s, "one"),
                    "the retry through the same service reads without the index");
            a.commit();
        }
        try (Connection b = SharedStack.connect(); Statement s = b.createStatement()) {
            assertEquals(List.of(1L), keysWhereV(s, "one"), "the dropping client's service reads without the index");
        }
    }

    /**
     * Phoenix's metadata cache evicts entries one by one (size-bounded), so a service can cache the data table, which
     * lists the index, without the index's own entry. After another client's DROP INDEX, Phoenix's optimizer then finds
     * the index gone but removes it from the data table's list only if the index's entry is cached: without a repair
     * every query through that service failed with 1012 naming the index (seen in IndexBuildHistoryIT: 17 and 74
     * failed reads in a row). A rollback of the failed read lets the provider repair the cache: one failure, then the
     * same service reads.
     */
    @Test
    void aServiceThatEvictedTheIndexEntryFailsOnceThenReadsAfterTheRollback() throws Exception {
        // This service has the periodic repair off (0), so only the rollback repairs.
        try (Connection a = serviceThatEvictedTheIndexEntry("localhost,localhost", "0");
             Statement s = a.createStatement()) {
            assertEquals(List.of(index), MetadataCacheFaults.cachedIndexesOf(a, table),
                    "the data table's entry still lists the evicted index");
            dropIndexFromThisClient();
            for (int i = 0; i < 2; i++) { // what Phoenix does alone: the same failure every time
                SQLException e = assertThrows(SQLException.class, () -> keysWhereV(s, "one"));
                assertEquals(1012, e.getErrorCode(), e.toString());
                assertTrue(e.getMessage().contains(index), e.getMessage());
            }
            a.rollback();
            assertEquals(List.of(1L), keysWhereV(s, "one"), "the retry after the rollback reads without the index");
            a.commit();
            assertEquals(List.of(), MetadataCacheFaults.cachedIndexesOf(a, table));
        }
    }

    /**
     * The periodic repair of each connection service (phoenix.txn.metadata.repair.ms) removes a data table whose
     * index entry was evicted before anyone drops the index: the next read resolves the table afresh, and a DROP
     * INDEX afterwards costs that service nothing.
     */
    @Test
    void thePeriodicRepairForgetsADataTableWhoseIndexEntryWasEvicted() throws Exception {
        try (Connection a = serviceThatEvictedTheIndexEntry("127.0.0.1,127.0.0.1", "50");
             Statement s = a.createStatement()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (MetadataCacheFaults.isCached(a, table)) {
                assertTrue(System.nanoTime() < deadline, "the repair never removed " + table);
                TimeUnit.MILLISECONDS.sleep(10);
            }
            dropIndexFromThisClient();
            assertEquals(List.of(1L), keysWhereV(s, "one"), "no failure: the table is resolved afresh");
            a.commit();
        }
    }

    /**
     * A connection of a service of its own ({@code hosts}, metadata repair every {@code repairMs}) that read through
     * the index, whose cache then evicted the index's own entry (not the data table's); not in auto-commit mode.
     */
    private Connection serviceThatEvictedTheIndexEntry(String hosts, String repairMs) throws Exception {
        java.util.Properties props = new java.util.Properties();
        props.setProperty(io.phoenixtxn.tm.TxnSettings.METADATA_REPAIR_MS.key(), repairMs);
        Connection a = SharedStack.connectThroughOwnService(hosts, props);
        try (Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            assertEquals(List.of(1L), keysWhereV(s, "one"), "through the index");
            a.commit();
            MetadataCacheFaults.evict(a, index);
            return a;
        } catch (Exception | AssertionError e) {
            a.close();
            throw e;
        }
    }

    private List<Long> keysWhereV(Statement s, String v) throws SQLException {
        List<Long> keys = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT K FROM " + table + " WHERE V = '" + v + "'")) {
            while (rs.next()) {
                keys.add(rs.getLong(1));
            }
        }
        return keys;
    }

    private void dropIndexFromThisClient() throws SQLException {
        try (Connection b = SharedStack.connect(); Statement ddl = b.createStatement()) {
            ddl.execute("DROP INDEX " + index + " ON " + table);
        }
    }

    private long n(Statement s, long k) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT N FROM " + table + " WHERE K = " + k)) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }
}
