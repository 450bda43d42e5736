package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.gc.Txns.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A table under GC split and merged: the daughters' compactions (which read the parent's files through references)
 * and the merged region's collect below the horizon, and every row reads back, at an old open snapshot and at a new
 * one.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class GcSplitMergeIT {
    private static final int ROWS = 100;
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

    private static String row(int i) {
        return String.format("r%03d", i);
    }

    @Test
    void splitCompactMergeLosesNothing() throws Exception {
        TableName name = stack.createTable("SPLIT_MERGE");
        try (TransactionalTable table = txns.table(name)) {
            for (String value : List.of("v0", "v1")) {
                writeAll(table, value);
            }
            Transaction reader = txns.begin();
            Transaction last = writeAll(table, "v2");
            stack.flush(name);
            assertEquals(reader.txId(), GcStack.refreshHorizon().gc(), "the open reader holds the horizon");

            try (Admin admin = stack.hbase().getAdmin()) {
                byte[] regionName = stack.regions(name).get(0).getRegionInfo().getRegionName();
                admin.splitRegionAsync(regionName, Bytes.toBytes(row(ROWS / 2))).get(2, TimeUnit.MINUTES);
            }
            GcStack.await(() -> stack.regions(name).size() == 2 ? Boolean.TRUE : null, "the daughters of " + name);
            stack.majorCompact(name);
            assertEquals(ROWS * 4, stack.rawCellCount(name), "v0 collected; v1 (the reader's) and v2 kept");
            readAll(table, reader, "v1");

            txns.finished(reader);
            GcStack.awaitHorizonAbove(last.commitTs());
            stack.majorCompact(name);
            assertEquals(ROWS * 2, stack.rawCellCount(name));
            readAllFresh(table, "v2");

            // The daughters' reference files leave the file system once compacted and archived; then the parent
            // can be cleaned up and the daughters merged (HBase refuses before).
            GcStack.await(() -> {
                for (HRegion daughter : stack.regions(name)) {
                    if (daughter.getRegionFileSystem().hasReferences(daughter.getTableDescriptor())) {
                        return null;
                    }
                }
                return Boolean.TRUE;
            }, "the daughters' references to be archived");
            try (Admin admin = stack.hbase().getAdmin()) {
                GcStack.await(() -> {
                    admin.runCatalogJanitor();
                    List<HRegion> daughters = stack.regions(name);
                    try {
                        admin.mergeRegionsAsync(new byte[][] {daughters.get(0).getRegionInfo()
                                .getEncodedNameAsBytes(), daughters.get(1).getRegionInfo().getEncodedNameAsBytes()},
                                false).get(2, TimeUnit.MINUTES);
                        return Boolean.TRUE;
                    } catch (java.util.concurrent.ExecutionException refused) {
                        return null; // the parent is not cleaned up yet
                    }
                }, "the merge of the daughters");
            }
            GcStack.await(() -> stack.regions(name).size() == 1 ? Boolean.TRUE : null, "the merged region");
            readAllFresh(table, "v2");
            Transaction more = writeAll(table, "v3");
            GcStack.awaitHorizonAbove(more.commitTs());
            stack.flush(name);
            stack.majorCompact(name);
            assertEquals(ROWS * 2, stack.rawCellCount(name));
            readAllFresh(table, "v3");
        }
    }

    /** One transaction writing {@code value} to every row. */
    private static Transaction writeAll(TransactionalTable table, String value) throws IOException {
        Transaction tx = txns.begin();
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            puts.add(new Put(Bytes.toBytes(row(i))).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes(value)));
        }
        table.put(tx, puts);
        txns.commit(tx);
        return tx;
    }

    private static void readAll(TransactionalTable table, Transaction tx, String expected) throws IOException {
        for (int i = 0; i < ROWS; i++) {
            assertEquals(expected, read(table, tx, row(i)), row(i));
        }
    }

    private static void readAllFresh(TransactionalTable table, String expected) throws IOException {
        Transaction tx = txns.begin();
        readAll(table, tx, expected);
        txns.finished(tx);
    }
}
