package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TTL on transactional tables through Phoenix (SET_TTL supported): Phoenix moves the table's TTL into the family
 * attribute {@code dataset.table.ttl} (of the table and of its indexes) and leaves the HBase TTL at FOREVER; readers
 * apply it at their snapshot's start and compaction-time GC removes expired data and commit cells together. The
 * waits are on the TM's clock passing the TTL (a TTL is a statement about time), polled, never slept blindly.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PhoenixTtlIT {
    private static final int TTL_SECONDS = 2;
    private static final String ATTRIBUTE = "dataset.table.ttl";
    private static GcStack stack;
    private static Txns txns;

    @BeforeAll
    static void setUp() throws Exception {
        stack = GcStack.get();
        stack.awaitNoOpenTransactions();
        txns = stack.client();
    }

    @AfterAll
    static void tearDown() {
        if (txns != null) {
            txns.close();
        }
    }

    @Test
    void aTransactionalTableWithTtlExpiresRowsForReadersAndTheirCellsAtCompaction() throws Exception {
        long oldCommittedBelow;
        try (Connection c = stack.stack().connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE TTL_TX (K VARCHAR PRIMARY KEY, V VARCHAR) TTL=" + TTL_SECONDS + ", TRANSACTIONAL=true");
            s.execute("CREATE INDEX TTL_TX_V ON TTL_TX (V)");
            assertPhoenixTtl("TTL_TX", TTL_SECONDS);
            assertPhoenixTtl("TTL_TX_V", TTL_SECONDS);

            c.setAutoCommit(false);
            s.execute("UPSERT INTO TTL_TX VALUES ('old', 'expires')");
            c.commit();
            oldCommittedBelow = tick();
            assertEquals(List.of("expires"), select(s, "SELECT V FROM TTL_TX WHERE K = 'old'"), "visible within TTL");
            c.commit();

            GcStack.await(() -> TimestampLayout.millisOf(tick()) - TTL_SECONDS * 1_000L
                    > TimestampLayout.millisOf(oldCommittedBelow) ? Boolean.TRUE : null, "the TTL to pass on the TM clock");
            s.execute("UPSERT INTO TTL_TX VALUES ('fresh', 'stays')");
            c.commit();
            assertEquals(List.of(), select(s, "SELECT V FROM TTL_TX WHERE K = 'old'"), "expired for a new snapshot");
            assertEquals(List.of("stays"), select(s, "SELECT V FROM TTL_TX WHERE K = 'fresh'"));
            assertEquals(List.of("fresh"), select(s, "SELECT K FROM TTL_TX WHERE V >= 'a'"),
                    "the index expires its rows with the table's");
            assertEquals(List.of("fresh"), select(s, "SELECT /*+ NO_INDEX */ K FROM TTL_TX WHERE V >= 'a'"));
            c.commit();
        }

        // GC at the horizon: once it is more than the TTL past the old commit, compaction removes the old row's
        // data, Phoenix's empty column and their commit cells, in the table and in the index.
        stack.awaitNoOpenTransactions();
        GcStack.await(() -> {
            txns.finished(txns.begin()); // the horizon follows the TM's clock as transactions begin
            Horizon h = GcStack.refreshHorizon();
            return TimestampLayout.millisOf(h.gc()) - TTL_SECONDS * 1_000L > TimestampLayout.millisOf(oldCommittedBelow)
                    ? h : null;
        }, "the horizon to be more than the TTL past the old commit");
        for (String table : List.of("TTL_TX", "TTL_TX_V")) {
            stack.flush(TableName.valueOf(table));
            stack.majorCompact(TableName.valueOf(table));
        }
        assertEquals(List.of(), stack.rawCells(TableName.valueOf("TTL_TX"), Bytes.toBytes("old")),
                "data, empty column and commit cells expired together");
        assertFalse(stack.rawCells(TableName.valueOf("TTL_TX"), Bytes.toBytes("fresh")).isEmpty());
        assertEquals(List.of("stays\u0000fresh"), rawRows(TableName.valueOf("TTL_TX_V")),
                "only the fresh row's index row is left");
    }

    @Test
    void alterTableSetTtlOnATransactionalTableMovesTheTtlToThePhoenixAttribute() throws Exception {
        try (Connection c = stack.stack().connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE TTL_ALTER (K VARCHAR PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("UPSERT INTO TTL_ALTER VALUES ('a', 'x')");
            c.commit();
            s.execute("ALTER TABLE TTL_ALTER SET TTL=86400");
            assertPhoenixTtl("TTL_ALTER", 86_400);
            assertEquals(List.of("x"), select(s, "SELECT V FROM TTL_ALTER WHERE K = 'a'"), "a day has not passed");
        }
    }

    /** A fresh TM timestamp: above every commit acknowledged before this call. */
    private static long tick() throws Exception {
        Transaction t = txns.begin();
        txns.finished(t);
        return t.txId();
    }

    private static void assertPhoenixTtl(String table, int seconds) throws Exception {
        try (Admin admin = stack.hbase().getAdmin()) {
            for (ColumnFamilyDescriptor family : admin.getDescriptor(TableName.valueOf(table)).getColumnFamilies()) {
                assertEquals(HConstants.FOREVER, family.getTimeToLive(), table + ": HBase TTL stays FOREVER");
                assertEquals(String.valueOf(seconds), family.getValue(ATTRIBUTE), table + ": " + family);
            }
        }
        assertTrue(seconds > 0);
    }

    private static List<String> rawRows(TableName name) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Table table = stack.hbase().getTable(name);
             ResultScanner scanner = table.getScanner(new Scan().readAllVersions().setRaw(true))) {
            for (Result r : scanner) {
                rows.add(Bytes.toString(r.getRow()));
            }
        }
        return rows;
    }

    private static List<String> select(Statement s, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
