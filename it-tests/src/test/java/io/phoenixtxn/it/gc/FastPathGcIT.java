package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compaction-time GC of fast-path versions on a real region (VLDB'18 sec. 4: data and commit cell written together at
 * one LVC version, which is also the commit timestamp): GC keeps the newest fast-path commit at or below the horizon
 * (and everything above it) with its commit cell, drops the older ones, and never takes a fast-path version for a
 * tentative or aborted one, through flushes, a compaction under a reader and one after it.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FastPathGcIT {
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
    void theNewestFastPathCommitSurvivesCompactionsUnderAndAfterAReader() throws Exception {
        TableName name = stack.createTable("fp_gc");
        try (Admin admin = stack.hbase().getAdmin()) {
            FastPathSwitch.enable(admin, name);
        }
        FastPathClient fastPath = new FastPathClient(txns.client());
        try (TransactionalTable t = txns.table(name); FastPathTable fp = fastPath.table(name)) {
            txns.commitValue(t, "x", "regular");
            fp.bwc(put("x", "fp1"));
            long seenByReader = fp.bwc(put("x", "fp2"));
            fp.bwc(put("y", "only fast path"));
            Transaction reader = txns.begin();
            assertEquals("fp2", Txns.read(t, reader, "x"));
            long newer = fp.bwc(put("x", "fp3"));
            long newest = fp.bwc(put("x", "fp4"));
            stack.flush(name);

            GcStack.awaitHorizonAbove(seenByReader); // held at the reader's start
            stack.majorCompact(name);
            assertEquals(Set.of(seenByReader, newer, newest), dataVersions(name, "x"),
                    "the reader's version and both above the horizon stay; the older ones go");
            assertEquals(dataVersions(name, "x"), commitVersions(name, "x"), "each with its commit cell");
            assertEquals("fp2", Txns.read(t, reader, "x"), "the reader's snapshot after the compaction");
            assertEquals("fp4", value(fp.brc(new Get(Bytes.toBytes("x")))));
            txns.commit(reader);

            txns.commit(txns.begin()); // a timestamp issued above the newest version: the horizon may pass it
            GcStack.awaitHorizonAbove(newest);
            stack.majorCompact(name);
            assertEquals(Set.of(newest), dataVersions(name, "x"), "only the newest fast-path commit is left");
            assertEquals(Set.of(newest), commitVersions(name, "x"));
            assertEquals(1, dataVersions(name, "y").size(), "a row written only by the fast path keeps its value");
            assertTrue(TimestampLayout.isFastPathVersion(newest));
            Transaction later = txns.begin();
            assertEquals("fp4", Txns.read(t, later, "x"));
            assertEquals("only fast path", Txns.read(t, later, "y"));
            txns.commit(later);
            assertEquals("fp4", value(fp.brc(new Get(Bytes.toBytes("x")))));
        }
    }

    private static Put put(String row, String value) {
        return new Put(Bytes.toBytes(row)).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes(value));
    }

    private static String value(org.apache.hadoop.hbase.client.Result r) {
        byte[] v = r.getValue(GcStack.FAMILY, GcStack.Q);
        return v == null ? null : Bytes.toString(v);
    }

    private static Set<Long> dataVersions(TableName name, String row) throws Exception {
        return versions(name, row, false);
    }

    private static Set<Long> commitVersions(TableName name, String row) throws Exception {
        return versions(name, row, true);
    }

    private static Set<Long> versions(TableName name, String row, boolean commitCells) throws Exception {
        List<Cell> cells = stack.rawCells(name, Bytes.toBytes(row));
        Set<Long> versions = new TreeSet<>();
        for (Cell c : cells) {
            if (c.getType() == Cell.Type.Put && OnDiskLayout.isCommitCell(c) == commitCells) {
                versions.add(c.getTimestamp());
            }
        }
        return versions;
    }
}
