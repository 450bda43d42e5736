package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.gc.Txns.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transaction that outlived its lease reads below the GC horizon: new reads are refused with "snapshot too old",
 * while a scanner it opened before keeps reading its snapshot across a flush and a compaction (HBase hands a flush's
 * file to open scanners, so a flush collects only what no snapshot sees; compactions never touch an open scanner).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SnapshotTooOldIT {
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
    void aTransactionBelowTheHorizonGetsSnapshotTooOld() throws Exception {
        TableName name = stack.createTable("TOO_OLD");
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r", "v0");
            Transaction reader = txns.begin();
            assertEquals("v0", read(table, reader, "r"));
            stack.expire(reader); // its lease ran out
            GcStack.awaitHorizonAbove(reader.txId());

            IOException get = assertThrows(IOException.class, () -> read(table, reader, "r"));
            assertTooOld(get, reader);
            IOException scan = assertThrows(IOException.class, () -> {
                try (ResultScanner scanner = table.getScanner(reader, new Scan())) {
                    scanner.next();
                }
            });
            assertTooOld(scan, reader);
        }
    }

    @Test
    void aScannerOpenWhenItsTransactionExpiresReadsItsSnapshotAcrossAFlushAndACompaction() throws Exception {
        TableName name = stack.createTable("OPEN_SCANNER");
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r1", "old1");
            txns.commitValue(table, "r2", "old2");
            Transaction reader = txns.begin();
            txns.commitValue(table, "r1", "new1");
            Transaction last = txns.commitValue(table, "r2", "new2");

            try (ResultScanner scanner = table.getScanner(reader, new Scan().setCaching(1))) {
                assertEquals("old1", value(scanner.next()));
                stack.expire(reader); // its lease runs out mid-scan
                GcStack.awaitHorizonAbove(last.commitTs());
                stack.flush(name); // the open scanner now reads the flushed file instead of the memstore
                stack.majorCompact(name);
                assertEquals(2, stack.rawCells(name, Bytes.toBytes("r2")).size(), "old2 was collected");
                assertEquals("old2", value(scanner.next()), "the open scanner lost its snapshot");
            }
            assertThrows(IOException.class, () -> read(table, reader, "r2"), "a new read of it is refused");
        }
    }

    private static String value(Result r) {
        return r == null ? null : Bytes.toString(r.getValue(GcStack.FAMILY, GcStack.Q));
    }

    private static void assertTooOld(IOException e, Transaction tx) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        String m = all.toString();
        assertTrue(m.contains("Snapshot too old") && m.contains(Long.toString(tx.txId()))
                && m.contains("phoenix.txn.tm.transaction.lease.ms"), m);
    }
}
