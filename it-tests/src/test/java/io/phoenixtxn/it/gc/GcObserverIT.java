package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.coprocessor.SnapshotReadObserver;
import io.phoenixtxn.phoenix.PhoenixTxnGcObserver;
import io.phoenixtxn.phoenix.PhoenixTxnObserver;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Phoenix installs the GC observer on transactional tables (and not on others), next to the read observer, which
 * then leaves GC to it; a table from before the GC observer existed (the read observer alone) is collected by the read
 * observer. Either way each store is collected by exactly one of them.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GcObserverIT {
    private static final byte[] PHOENIX_FAMILY = Bytes.toBytes("0");
    private static final byte[] COLUMN = Bytes.toBytes("V");
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
    void aTableFromBeforeTheGcObserverIsCollectedByItsReadObserver() throws Exception {
        TableName name = TableName.valueOf("GC_OLD_STYLE");
        try (Admin admin = stack.hbase().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(PHOENIX_FAMILY)
                            .setMaxVersions(Integer.MAX_VALUE).build())
                    .setCoprocessor(ObserverNames.PHOENIX_OBSERVER).build());
        }
        HRegion region = stack.regions(name).get(0);
        assertTrue(readObserver(region).collectsGarbage(), "the read observer collects a table without GC observer");
        assertCollected(name, "a");
    }

    @Test
    void phoenixTransactionalTablesCarryBothObserversAndTheGcObserverCollectsThem() throws Exception {
        try (Connection c = stack.stack().connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE GC_TX (K VARCHAR PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("CREATE TABLE GC_PLAIN (K VARCHAR PRIMARY KEY, V VARCHAR)");
        }
        // Phoenix took GC_TX's timestamp from a transaction it began and rolled back; the client does not tell the
        // TM yet, so that transaction holds the GC horizon until its lease runs out.
        stack.awaitNoOpenTransactions();
        TableName name = TableName.valueOf("GC_TX");
        try (Admin admin = stack.hbase().getAdmin()) {
            TableDescriptor tx = admin.getDescriptor(name);
            assertTrue(tx.hasCoprocessor(ObserverNames.PHOENIX_OBSERVER), tx.toString());
            assertTrue(tx.hasCoprocessor(ObserverNames.PHOENIX_GC_OBSERVER), tx.toString());
            TableDescriptor plain = admin.getDescriptor(TableName.valueOf("GC_PLAIN"));
            assertFalse(plain.hasCoprocessor(ObserverNames.PHOENIX_OBSERVER), plain.toString());
            assertFalse(plain.hasCoprocessor(ObserverNames.PHOENIX_GC_OBSERVER), plain.toString());
        }
        HRegion region = stack.regions(name).get(0);
        assertNotNull(region.getCoprocessorHost().findCoprocessor(PhoenixTxnGcObserver.class));
        assertFalse(readObserver(region).collectsGarbage(), "the read observer leaves GC to the GC observer");
        // Phoenix's own compaction hook runs too (and begins a transaction on a server connection, after the
        // horizon this compaction uses): the newest version survives both.
        assertCollected(name, "a");
    }

    private static SnapshotReadObserver readObserver(HRegion region) {
        return region.getCoprocessorHost().findCoprocessor(PhoenixTxnObserver.class);
    }

    /** Ten committed versions of one Phoenix column collapse to the newest (with its commit cell). */
    private static void assertCollected(TableName name, String row) throws Exception {
        Transaction last = null;
        try (TransactionalTable table = txns.table(name)) {
            for (int i = 0; i < 10; i++) {
                last = txns.begin();
                table.put(last, new Put(Bytes.toBytes(row)).addColumn(PHOENIX_FAMILY, COLUMN, Bytes.toBytes("v" + i)));
                txns.commit(last);
            }
        }
        GcStack.awaitHorizonAbove(last.commitTs());
        stack.flush(name);
        stack.majorCompact(name);
        assertEquals(2, stack.rawCells(name, Bytes.toBytes(row)).size(), "row " + row);
    }
}
