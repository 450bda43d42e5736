package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.bulkload.TransactionalCsvBulkLoadTool;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.phoenix.FastPathRoutingStats;
import io.phoenixtxn.phoenix.LoadMapperSnapshot;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.query.QueryServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk load into a transactional table with an index is one transaction (docs/design.md, "Bulk load"): Phoenix's
 * CsvBulkLoadTool with our transactional branch ({@link TransactionalCsvBulkLoadTool}, MapReduce on the local runner
 * against the minicluster) loads 100K rows; a transaction that began before the load sees none of them, in the table
 * or its index, even after the load committed, and can no longer write the table (its commit fenced it); one that
 * begins after sees every row and every index row, value for value, null columns included.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TransactionalBulkLoadIT {
    private static final int ROWS = 100_000;
    /** Every this many rows W is empty in the CSV: a null column, loaded as a tombstone. */
    private static final int NULL_EVERY = 1_000;

    @Test
    void aLoadIsOneTransactionForTheTableAndItsIndex() throws Exception {
        String table = SharedStack.uniqueTable("BULK_TX");
        String index = table + "_I";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, W BIGINT) TRANSACTIONAL=true");
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) INCLUDE (W)");
        }
        Configuration conf = new Configuration(SharedStack.get().configuration());
        conf.set(QueryServices.TRANSACTIONS_ENABLED, "true");
        Path input = writeCsv(conf);

        try (Connection before = SharedStack.connect(); Statement early = before.createStatement()) {
            assertEquals(0, count(early, "SELECT COUNT(*) FROM " + table), "the table starts empty");

            TransactionalCsvBulkLoadTool tool = new TransactionalCsvBulkLoadTool();
            tool.setConf(conf);
            long tmBeginsBefore = FastPathRoutingStats.tmBegins();
            int status = tool.run(new String[] {"--input", input.toString(), "--table", table,
                "--output", "/tmp/" + UUID.randomUUID()});
            assertEquals(0, status, "the tool reports success");
            // Phoenix's mapper begins and rolls back a transaction per CSV line; they are views of the load's own
            // transaction (LoadMapperSnapshot), not TM transactions. A handful of begins come from the tool's and
            // Phoenix's own metadata reads.
            long tmBegins = FastPathRoutingStats.tmBegins() - tmBeginsBefore;
            assertTrue(tmBegins < 100, "the mappers began " + tmBegins + " transactions at the TM for " + ROWS
                    + " lines");

            // The transaction that began before the load: its snapshot has none of it, by any access path.
            assertEquals(0, count(early, "SELECT /*+ NO_INDEX */ COUNT(*) FROM " + table));
            assertEquals(0, count(early, "SELECT COUNT(*) FROM " + index));
            early.execute("UPSERT INTO " + table + " VALUES (1, 'stale', 0)");
            SQLException fenced = assertThrows(SQLException.class, before::commit,
                    "a transaction that did not see the load must not write over it");
            assertEquals(523, fenced.getErrorCode(), fenced.getMessage());
        }

        for (String loaded : new String[] {table, index}) {
            long[] cells = cellsAndCommitCells(loaded);
            assertTrue(cells[0] >= ROWS, loaded + " holds the load: " + cells[0]);
            assertEquals(cells[0], cells[1], "the tool wrote a commit cell beside every cell it loaded in " + loaded);
        }
        try (Connection after = SharedStack.connect(); Statement s = after.createStatement()) {
            assertEquals(ROWS, count(s, "SELECT /*+ NO_INDEX */ COUNT(*) FROM " + table));
            assertEquals(ROWS, count(s, "SELECT COUNT(*) FROM " + index), "every index row");
            long nulls = ROWS / NULL_EVERY;
            long sumW = 0;
            for (long k = 1; k <= ROWS; k++) {
                sumW += k % NULL_EVERY == 0 ? 0 : 2 * k;
            }
            assertEquals(sumW, count(s, "SELECT /*+ NO_INDEX */ SUM(W) FROM " + table));
            assertEquals(nulls, count(s, "SELECT /*+ NO_INDEX */ COUNT(*) FROM " + table + " WHERE W IS NULL"));
            // the same values through the index, every row compared on the data table's key and columns
            String throughIndex = "SELECT /*+ INDEX(" + table + " " + index + ") */ COUNT(*), SUM(K), SUM(W) FROM "
                    + table + " WHERE V >= 'v'";
            try (ResultSet plan = s.executeQuery("EXPLAIN " + throughIndex)) {
                StringBuilder text = new StringBuilder();
                while (plan.next()) {
                    text.append(plan.getString(1)).append('\n');
                }
                assertTrue(text.toString().contains(index), "the query reads the index: " + text);
            }
            try (ResultSet rs = s.executeQuery(throughIndex)) {
                assertTrue(rs.next());
                assertEquals(ROWS, rs.getLong(1));
                assertEquals((long) ROWS * (ROWS + 1) / 2, rs.getLong(2));
                assertEquals(sumW, rs.getLong(3));
            }
            try (ResultSet rs = s.executeQuery("SELECT K, W FROM " + table + " WHERE V = 'v77777'")) {
                assertTrue(rs.next());
                assertEquals(77_777, rs.getLong(1));
                assertEquals(2 * 77_777, rs.getLong(2));
            }
            // and the table is writable again by transactions that see the load
            s.execute("UPSERT INTO " + table + " VALUES (1, 'changed', 5)");
            after.commit();
            assertEquals(1, count(s, "SELECT COUNT(*) FROM " + table + " WHERE V = 'changed'"));
        }
    }

    /**
     * A load over committed rows: a column the CSV leaves empty must hide the committed value (our tombstone, not
     * a one-byte value and not a dropped cell), a column it sets must replace it. No index: Phoenix's tool refuses a
     * non-empty table with a global index.
     */
    @Test
    void aNullColumnInTheLoadHidesTheCommittedValueBelowIt() throws Exception {
        String table = SharedStack.uniqueTable("BULK_NULL");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, W BIGINT) TRANSACTIONAL=true");
            for (int k = 1; k <= 10; k++) {
                s.execute("UPSERT INTO " + table + " VALUES (" + k + ", 'old', " + (100 + k) + ")");
            }
            c.commit();
        }
        Configuration conf = new Configuration(SharedStack.get().configuration());
        conf.set(QueryServices.TRANSACTIONS_ENABLED, "true");
        Path input = new Path("/tmp/" + UUID.randomUUID() + "/input.csv");
        try (FSDataOutputStream out = input.getFileSystem(conf).create(input)) {
            for (int k = 1; k <= 10; k++) {
                out.write((k + ",new," + (k % 2 == 0 ? "" : Integer.toString(k)) + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
        }
        TransactionalCsvBulkLoadTool tool = new TransactionalCsvBulkLoadTool();
        tool.setConf(conf);
        assertEquals(0, tool.run(new String[] {"--input", input.toString(), "--table", table,
            "--output", "/tmp/" + UUID.randomUUID()}));
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            assertEquals(5, count(s, "SELECT COUNT(*) FROM " + table + " WHERE W IS NULL AND V = 'new'"));
            assertEquals(1 + 3 + 5 + 7 + 9, count(s, "SELECT SUM(W) FROM " + table));
            assertEquals(10, count(s, "SELECT COUNT(*) FROM " + table));
        }
    }

    /**
     * A connection carrying a load's setting (as Phoenix's bulk-load mapper's does: every job setting becomes a
     * connection property) reads at the load's snapshot and refuses to write: cells at the load's version would be
     * committed by the load's commit, past its hold.
     */
    @Test
    void aConnectionWithALoadsSettingReadsAtItsSnapshotAndCannotWrite() throws Exception {
        String table = SharedStack.uniqueTable("BULK_VIEW");
        long snapshot;
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("UPSERT INTO " + table + " VALUES (1, 'before')");
            c.commit();
            count(s, "SELECT COUNT(*) FROM " + table);
            snapshot = c.unwrap(PhoenixConnection.class).getMutationState().getPhoenixTransactionContext()
                    .getTransactionId();
            c.commit();
            s.execute("UPSERT INTO " + table + " VALUES (1, 'after')");
            c.commit();
        }
        Properties props = new Properties();
        props.setProperty(LoadMapperSnapshot.VERSION, Long.toString(snapshot));
        try (Connection view = SharedStack.get().connect(SharedStack.routed(props)); Statement s = view.createStatement()) {
            view.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT V FROM " + table + " WHERE K = 1")) {
                assertTrue(rs.next());
                assertEquals("before", rs.getString(1), "the view reads at its snapshot");
            }
            view.rollback();
            s.execute("UPSERT INTO " + table + " VALUES (2, 'x')");
            SQLException refused = assertThrows(SQLException.class, view::commit);
            assertTrue(String.valueOf(refused.getMessage()).contains("map task of a transactional bulk load"),
                    refused.getMessage());
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            assertEquals(1, count(s, "SELECT COUNT(*) FROM " + table), "nothing of the refused write is visible");
        }
    }

    /** {data cells, commit cells} of a table, read raw. */
    private static long[] cellsAndCommitCells(String table) throws Exception {
        long[] counts = new long[2];
        try (org.apache.hadoop.hbase.client.Table t = SharedStack.get().hbase().getConnection()
                .getTable(org.apache.hadoop.hbase.TableName.valueOf(table));
             org.apache.hadoop.hbase.client.ResultScanner scanner = t.getScanner(
                     new org.apache.hadoop.hbase.client.Scan().readAllVersions())) {
            for (org.apache.hadoop.hbase.client.Result r : scanner) {
                for (org.apache.hadoop.hbase.Cell cell : r.rawCells()) {
                    counts[io.phoenixtxn.client.OnDiskLayout.isCommitCell(cell) ? 1 : 0]++;
                }
            }
        }
        return counts;
    }

    private static Path writeCsv(Configuration conf) throws Exception {
        Path input = new Path("/tmp/" + UUID.randomUUID() + "/input.csv");
        FileSystem fs = input.getFileSystem(conf);
        try (FSDataOutputStream raw = fs.create(input); BufferedOutputStream out = new BufferedOutputStream(raw)) {
            for (long k = 1; k <= ROWS; k++) {
                String w = k % NULL_EVERY == 0 ? "" : Long.toString(2 * k);
                out.write((k + ",v" + k + "," + w + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return input;
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
