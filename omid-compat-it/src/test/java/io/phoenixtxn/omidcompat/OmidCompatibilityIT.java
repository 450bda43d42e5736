package io.phoenixtxn.omidcompat;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.omid.committable.CommitTable.CommitTimestamp;
import org.apache.omid.committable.hbase.KeyGeneratorImplementations;
import org.apache.omid.transaction.CellUtils;
import org.apache.omid.transaction.HBaseTransaction;
import org.apache.omid.transaction.HBaseTransactionManager;
import org.apache.omid.transaction.TTable;
import org.apache.phoenix.thirdparty.com.google.common.base.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On-disk compatibility with Apache Omid 1.1: the real Omid 1.1.2 client (Maven Central) and phoenix-txn share one
 * table (our observer in its descriptor; Omid filters on the client) and one {@code OMID_COMMIT_TABLE}. Data committed
 * by either reads correctly through the other, including commits whose shadow cells were never written, deletes,
 * and invalidated transactions. Every scenario also checks the raw cells with a plain HBase read, so a failure names
 * the byte format that differs.
 *
 * <p>The two TMs are separate (our embedded TM, Omid's in-process TSO with WORLD_TIME timestamps); they never run
 * transactions on the same rows at the same time, and each reader is begun only once its timestamp is above the
 * commit it must see ({@link #oursAfter}, {@link #omidAfter}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OmidCompatibilityIT {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] G = Bytes.toBytes("g");
    private static final byte[] Q1 = Bytes.toBytes("q1");
    private static final byte[] Q2 = Bytes.toBytes("q2");
    private static final String TABLE = "OMID_COMPAT";

    private static EmbeddedStack stack;
    private static Connection hbase;
    private static TxnClient ours;
    private static OmidSide omid;
    private static TableName tableName;

    @BeforeAll
    static void start() throws Exception {
        stack = EmbeddedStack.start();
        hbase = stack.hbase().getConnection();
        // Creates OMID_COMMIT_TABLE (families F and LWF), which Omid's TSO and client then use as is.
        ours = new TxnClient(hbase, stack::transactionManager, TxnClientConfig.from(stack.configuration()::get)
                .withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC));
        tableName = TableName.valueOf(TABLE);
        try (Admin admin = hbase.getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(tableName)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(Integer.MAX_VALUE).build())
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(G).setMaxVersions(Integer.MAX_VALUE).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build());
        }
        omid = OmidSide.start(stack.configuration(), hbase);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (omid != null) {
                omid.close();
            }
            if (ours != null) {
                ours.close();
            }
        } finally {
            if (stack != null) {
                stack.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // 1. Omid writes, we read
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void omidCommitsReadThroughUsWithSnapshotIsolation() throws Exception {
        byte[] row = Bytes.toBytes("omid-commit");
        HBaseTransaction first = (HBaseTransaction) omid.tm().begin();
        try (TTable t = omid.table(TABLE)) {
            t.put(first, new Put(row).addColumn(F, Q1, Bytes.toBytes("a1")).addColumn(G, Q2, Bytes.toBytes("b1")));
        }
        omid.tm().commit(first);

        // Omid's shadow cells are our commit cells, byte for byte; the entry is gone after its post-commit.
        assertCommitCell(row, F, Q1, first.getStartTimestamp(), first.getCommitTimestamp());
        assertCommitCell(row, G, Q2, first.getStartTimestamp(), first.getCommitTimestamp());
        assertEquals(CommitTable.Entry.State.ABSENT, ours.commitTable().lookup(first.getStartTimestamp()).state());

        Transaction between = oursAfter(first.getCommitTimestamp());
        HBaseTransaction second = OmidSide.begin(omid.tm(), ts -> ts > between.txId());
        try (TTable t = omid.table(TABLE)) {
            t.put(second, new Put(row).addColumn(F, Q1, Bytes.toBytes("a2")));
        }
        omid.tm().commit(second);

        assertEquals(Map.of("f:q1", "a1", "g:q2", "b1"), ourRow(between, row), "a snapshot taken before Omid's"
                + " second commit keeps its values");
        Transaction after = oursAfter(second.getCommitTimestamp());
        assertEquals(Map.of("f:q1", "a2", "g:q2", "b1"), ourRow(after, row));
        assertEquals("a2", ourValue(after, row, F, Q1), "a get naming the column");
        assertEquals(Map.of("f:q1", "a2", "g:q2", "b1"), ourScan(after, row));
        ours.commit(between);
        ours.commit(after);
    }

    /**
     * Omid refuses qualifiers that end with the shadow-cell suffix {@code C2 80} only when they are longer than the
     * suffix ({@code CellUtils.isShadowCell}: length > 2), so the qualifier {@code C2 80} itself ("\u0080") is user
     * data for Omid. It must be user data for us too.
     */
    @Test
    void omidDataInTheQualifierMadeOfTheShadowSuffixAloneReadsThroughUs() throws Exception {
        byte[] row = Bytes.toBytes("omid-suffix-qualifier");
        byte[] suffixOnly = {(byte) 0xC2, (byte) 0x80};
        HBaseTransaction tx = (HBaseTransaction) omid.tm().begin();
        try (TTable t = omid.table(TABLE)) {
            t.put(tx, new Put(row).addColumn(F, suffixOnly, Bytes.toBytes("odd")).addColumn(F, Q1, Bytes.toBytes("e")));
        }
        omid.tm().commit(tx);
        assertFalse(CellUtils.isShadowCell(rawCell(row, F, suffixOnly, tx.getStartTimestamp())), "Omid: data");
        assertFalse(OnDiskLayout.isCommitCell(rawCell(row, F, suffixOnly, tx.getStartTimestamp())), "us: data too");

        HBaseTransaction omidReader = omidAfter(tx.getCommitTimestamp());
        assertEquals("odd", omidValue(omidReader, row, F, suffixOnly));
        omid.tm().commit(omidReader);
        Transaction reader = oursAfter(tx.getCommitTimestamp());
        assertEquals(Map.of("f:q1", "e", "f:\u0080", "odd"), ourRow(reader, row));
        assertEquals("odd", ourValue(reader, row, F, suffixOnly));
        ours.commit(reader);
    }

    @Test
    void omidCommitWithoutShadowCellsReadsThroughUsViaTheCommitTable_startOnAMillisecondBoundary() throws Exception {
        omidCommitWithoutShadowCells("omid-crash-boundary", OmidSide.begin(omid.tmWithoutPostCommit(),
                ts -> ts % TimestampLayout.UNITS_PER_MILLI == 0));
    }

    /**
     * Omid's WORLD_TIME oracle issues ms x 1,000,000 + k x 50; when k x 50 mod 950 >= 50 our layout classifies the
     * start timestamp as a fast-path version. Such a commit must still resolve through the commit table.
     */
    @Test
    void omidCommitWithoutShadowCellsReadsThroughUsViaTheCommitTable_startInsideAMillisecond() throws Exception {
        omidCommitWithoutShadowCells("omid-crash-inside", OmidSide.beginConcurrently(omid.tmWithoutPostCommit(),
                TimestampLayout::isFastPathVersion));
    }

    private void omidCommitWithoutShadowCells(String rowName, HBaseTransaction tx) throws Exception {
        byte[] row = Bytes.toBytes(rowName);
        HBaseTransactionManager crashing = omid.tmWithoutPostCommit();
        try (TTable t = omid.table(TABLE)) {
            t.put(tx, new Put(row).addColumn(F, Q1, Bytes.toBytes("c1")));
        }
        crashing.commit(tx);
        long start = tx.getStartTimestamp();
        long commit = tx.getCommitTimestamp();

        assertEquals(List.of(), commitCells(row, F, Q1), "Omid's post-commit was skipped: no shadow cell");
        assertRawCommitEntry(start, commit);
        CommitTable.Entry entry = ours.commitTable().lookup(start);
        assertEquals(CommitTable.Entry.State.COMMITTED, entry.state());
        assertEquals(commit, entry.commitTs(), "our decoding of the TSO-written entry");

        Transaction reader = oursAfter(commit);
        assertEquals("c1", ourValue(reader, row, F, Q1), "start " + start + " ("
                + TimestampLayout.describe(start) + "), commit " + commit + ": committed in the commit table only");
        ours.commit(reader);
        // Omid agrees (and heals the shadow cell, in the same format).
        HBaseTransaction omidReader = omidAfter(commit);
        assertEquals("c1", omidValue(omidReader, row, F, Q1));
        assertCommitCell(row, F, Q1, start, commit);
        omid.tm().commit(omidReader);
    }

    // ------------------------------------------------------------------------------------------------------------
    // 2. We write, Omid reads
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void ourCommitsReadThroughOmidWithSnapshotIsolation() throws Exception {
        byte[] row = Bytes.toBytes("ours-commit");
        Transaction first = ours.begin();
        try (TransactionalTable t = ours.table(tableName)) {
            t.put(first, new Put(row).addColumn(F, Q1, Bytes.toBytes("x1")).addColumn(G, Q2, Bytes.toBytes("y1")));
        }
        ours.commit(first);

        // Our commit cells are Omid's shadow cells, byte for byte; our SYNC post-commit removed the entry.
        for (byte[][] fq : new byte[][][] {{F, Q1}, {G, Q2}}) {
            List<Cell> cells = commitCells(row, fq[0], fq[1]);
            assertEquals(1, cells.size());
            Cell cell = cells.get(0);
            assertArrayEquals(CellUtils.addShadowCellSuffixPrefix(fq[1]), CellUtil.cloneQualifier(cell));
            assertTrue(CellUtils.isShadowCell(cell));
            assertEquals(first.txId(), cell.getTimestamp());
            assertEquals(first.commitTs(), Bytes.toLong(CellUtil.cloneValue(cell)));
        }
        assertFalse(omid.commitTable().getCommitTimestamp(first.txId()).get().isPresent());

        HBaseTransaction between = omidAfter(first.commitTs());
        Transaction second = oursAfter(between.getStartTimestamp());
        try (TransactionalTable t = ours.table(tableName)) {
            t.put(second, new Put(row).addColumn(F, Q1, Bytes.toBytes("x2")));
        }
        ours.commit(second);

        assertEquals(Map.of("f:q1", "x1", "g:q2", "y1"), omidRow(between, row), "an Omid snapshot taken before our"
                + " second commit keeps its values");
        HBaseTransaction after = omidAfter(second.commitTs());
        assertEquals(Map.of("f:q1", "x2", "g:q2", "y1"), omidRow(after, row));
        assertEquals("x2", omidValue(after, row, F, Q1), "a get naming the column");
        assertEquals(Map.of("f:q1", "x2", "g:q2", "y1"), omidScan(after, row));
        omid.tm().commit(between);
        omid.tm().commit(after);
    }

    @Test
    void ourCommitWithoutCommitCellsReadsThroughOmidViaTheCommitTable() throws Exception {
        byte[] row = Bytes.toBytes("ours-crash");
        Transaction tx = ours.begin();
        try (TransactionalTable t = ours.table(tableName)) {
            t.put(tx, new Put(row).addColumn(F, Q1, Bytes.toBytes("z1")));
        }
        ProtocolHooks previous = ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterCommitPoint(long txId, long commitTs) throws IOException {
                if (txId == tx.txId()) {
                    throw new IOException("simulated client crash after the commit point");
                }
            }
        });
        try {
            assertThrows(IOException.class, () -> ours.commit(tx));
        } finally {
            ProtocolHooks.install(previous);
        }
        long commit = tx.commitTs();
        assertEquals(List.of(), commitCells(row, F, Q1), "the crashed client wrote no commit cell");
        assertRawCommitEntry(tx.txId(), commit);
        Optional<CommitTimestamp> entry = omid.commitTable().getCommitTimestamp(tx.txId()).get();
        assertTrue(entry.isPresent() && entry.get().isValid(), "Omid sees our commit entry: " + entry);
        assertEquals(commit, entry.get().getValue(), "Omid's decoding of our entry");

        HBaseTransaction reader = omidAfter(commit);
        assertEquals("z1", omidValue(reader, row, F, Q1));
        omid.tm().commit(reader);
        // Omid healed the commit cell; it is one of ours, and we read through it.
        assertCommitCell(row, F, Q1, tx.txId(), commit);
        Transaction ourReader = oursAfter(commit);
        assertEquals("z1", ourValue(ourReader, row, F, Q1));
        ours.commit(ourReader);
    }

    // ------------------------------------------------------------------------------------------------------------
    // 3. Deletes
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void omidDeletesReadAsDeletedThroughUs() throws Exception {
        byte[] column = Bytes.toBytes("omid-del-column");
        byte[] wholeRow = Bytes.toBytes("omid-del-row");
        byte[] family = Bytes.toBytes("omid-del-family");
        HBaseTransaction setup = (HBaseTransaction) omid.tm().begin();
        try (TTable t = omid.table(TABLE)) {
            for (byte[] row : List.of(column, wholeRow, family)) {
                t.put(setup, threeColumns(row));
            }
        }
        omid.tm().commit(setup);

        Transaction before = oursAfter(setup.getCommitTimestamp());
        HBaseTransaction delete = OmidSide.begin(omid.tm(), ts -> ts > before.txId());
        try (TTable t = omid.table(TABLE)) {
            t.delete(delete, new Delete(column).addColumns(F, Q1));
            t.delete(delete, new Delete(wholeRow));
            t.delete(delete, new Delete(family).addFamily(F));
        }
        omid.tm().commit(delete);
        long version = delete.getStartTimestamp();

        // Omid's markers are ours: an empty value at the column, an empty qualifier + empty value for a family.
        Cell tombstone = rawCell(column, F, Q1, version);
        assertTrue(OnDiskLayout.isTombstone(tombstone) && !OnDiskLayout.isFamilyDeleteMarker(tombstone));
        for (byte[] row : List.of(wholeRow, family)) {
            assertTrue(OnDiskLayout.isFamilyDeleteMarker(rawCell(row, F, OnDiskLayout.FAMILY_DELETE_QUALIFIER,
                    version)), Bytes.toString(row));
            assertCommitCell(row, F, OnDiskLayout.FAMILY_DELETE_QUALIFIER, version, delete.getCommitTimestamp());
        }
        assertTrue(OnDiskLayout.isFamilyDeleteMarker(rawCell(wholeRow, G, OnDiskLayout.FAMILY_DELETE_QUALIFIER,
                version)));

        Transaction after = oursAfter(delete.getCommitTimestamp());
        assertEquals(Map.of("f:q2", "2", "g:q1", "3"), ourRow(after, column));
        assertEquals(Map.of(), ourRow(after, wholeRow));
        assertEquals(Map.of("g:q1", "3"), ourRow(after, family));
        assertEquals(null, ourValue(after, family, F, Q2), "a get naming a column of the deleted family");
        assertEquals(Map.of("f:q1", "1", "f:q2", "2", "g:q1", "3"), ourRow(before, wholeRow),
                "a snapshot from before the delete keeps the row");
        ours.commit(before);
        ours.commit(after);
    }

    @Test
    void ourDeletesReadAsDeletedThroughOmid() throws Exception {
        byte[] column = Bytes.toBytes("ours-del-column");
        byte[] wholeRow = Bytes.toBytes("ours-del-row");
        byte[] family = Bytes.toBytes("ours-del-family");
        Transaction setup = ours.begin();
        try (TransactionalTable t = ours.table(tableName)) {
            for (byte[] row : List.of(column, wholeRow, family)) {
                t.put(setup, threeColumns(row));
            }
        }
        ours.commit(setup);

        HBaseTransaction before = omidAfter(setup.commitTs());
        Transaction delete = oursAfter(before.getStartTimestamp());
        try (TransactionalTable t = ours.table(tableName)) {
            t.delete(delete, new Delete(column).addColumns(F, Q1));
            t.delete(delete, new Delete(wholeRow));
            t.delete(delete, new Delete(family).addFamily(F));
        }
        ours.commit(delete);
        long version = delete.txId();

        Cell tombstone = rawCell(column, F, Q1, version);
        assertEquals(0, tombstone.getValueLength(), "column delete = empty value (Omid's DELETE_TOMBSTONE)");
        for (byte[] row : List.of(wholeRow, family)) {
            assertTrue(CellUtils.isFamilyDeleteCell(rawCell(row, F, CellUtils.FAMILY_DELETE_QUALIFIER, version)),
                    Bytes.toString(row));
        }
        assertTrue(CellUtils.isFamilyDeleteCell(rawCell(wholeRow, G, CellUtils.FAMILY_DELETE_QUALIFIER, version)));

        HBaseTransaction after = omidAfter(delete.commitTs());
        assertEquals(Map.of("f:q2", "2", "g:q1", "3"), omidRow(after, column));
        assertEquals(Map.of(), omidRow(after, wholeRow));
        assertEquals(Map.of("g:q1", "3"), omidRow(after, family));
        assertEquals(null, omidValue(after, family, F, Q2), "a get naming a column of the deleted family");
        assertEquals(Map.of("f:q1", "1", "f:q2", "2", "g:q1", "3"), omidRow(before, wholeRow),
                "an Omid snapshot from before the delete keeps the row");
        omid.tm().commit(before);
        omid.tm().commit(after);
    }

    // ------------------------------------------------------------------------------------------------------------
    // 4. Invalidated transactions
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void omidInvalidatedTransactionReadsAsAbortedThroughUs() throws Exception {
        byte[] row = Bytes.toBytes("omid-invalid");
        HBaseTransaction setup = (HBaseTransaction) omid.tm().begin();
        try (TTable t = omid.table(TABLE)) {
            t.put(setup, new Put(row).addColumn(F, Q1, Bytes.toBytes("v0")));
        }
        omid.tm().commit(setup);

        HBaseTransaction pending = (HBaseTransaction) omid.tm().begin();
        try (TTable t = omid.table(TABLE)) {
            t.put(pending, new Put(row).addColumn(F, Q1, Bytes.toBytes("v1")));
        }
        long start = pending.getStartTimestamp();
        assertTrue(omid.commitTable().tryInvalidateTransaction(start).get(), "Omid's invalidation");

        // The invalid marker is ours: F:IT = int 1 at version = start timestamp, in the row of our key.
        Result entry = rawCommitEntry(start);
        assertArrayEquals(HBaseCommitTable.INVALID_VALUE, entry.getValue(HBaseCommitTable.FAMILY,
                HBaseCommitTable.INVALID_QUALIFIER));
        assertEquals(start, entry.getColumnLatestCell(HBaseCommitTable.FAMILY, HBaseCommitTable.INVALID_QUALIFIER)
                .getTimestamp());
        assertEquals(CommitTable.Entry.State.INVALIDATED, ours.commitTable().lookup(start).state());

        Transaction reader = oursAfter(start);
        assertEquals("v0", ourValue(reader, row, F, Q1), "the invalidated write is aborted for us");
        assertEquals(Map.of("f:q1", "v0"), ourRow(reader, row));
        ours.commit(reader);
        assertEquals(CommitTable.Entry.State.INVALIDATED, ours.commitTable().lookup(start).state(),
                "our reader leaves Omid's marker alone");
        HBaseTransaction omidReader = omidAfter(start);
        assertEquals("v0", omidValue(omidReader, row, F, Q1));
        omid.tm().commit(omidReader);
        omid.tm().rollback(pending);
    }

    @Test
    void transactionInvalidatedByUsReadsAsAbortedThroughOmid() throws Exception {
        byte[] row = Bytes.toBytes("ours-invalid");
        Transaction setup = ours.begin();
        try (TransactionalTable t = ours.table(tableName)) {
            t.put(setup, new Put(row).addColumn(F, Q1, Bytes.toBytes("w0")));
        }
        ours.commit(setup);

        Transaction pending = ours.begin();
        try (TransactionalTable t = ours.table(tableName)) {
            t.put(pending, new Put(row).addColumn(F, Q1, Bytes.toBytes("w1")));
        }
        assertTrue(ours.commitTable().tryInvalidate(pending.txId()), "a reader's force-abort");
        Optional<CommitTimestamp> seen = omid.commitTable().getCommitTimestamp(pending.txId()).get();
        assertTrue(seen.isPresent() && !seen.get().isValid(), "Omid reads our marker as invalid: " + seen);

        HBaseTransaction reader = omidAfter(pending.txId());
        assertEquals("w0", omidValue(reader, row, F, Q1), "the invalidated write is aborted for Omid");
        omid.tm().commit(reader);
        TxnAbortedException aborted = assertThrows(TxnAbortedException.class, () -> ours.commit(pending));
        assertEquals(AbortReason.INVALIDATED, aborted.reason());
        HBaseTransaction later = omidAfter(pending.txId());
        assertEquals("w0", omidValue(later, row, F, Q1));
        omid.tm().commit(later);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Commit table, byte for byte (synthetic ids from 2001, far from any real transaction)
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void commitTableEntriesRoundTripBetweenOmidAndUs() throws Exception {
        long base = 978_307_200_000L * TimestampLayout.UNITS_PER_MILLI;
        // Omid-shaped ids (multiples of 50 inside a millisecond) and ours (slot starts), all 8 even buckets.
        long[] ids = new long[16];
        for (int i = 0; i < 8; i++) {
            ids[i] = base + i * TimestampLayout.SLOT_WIDTH;
            ids[8 + i] = base + 500_000 + (i + 1) * 50L;
        }
        for (long id : ids) {
            assertArrayEquals(KeyGeneratorImplementations.defaultKeyGenerator().startTimestampToKey(id),
                    HBaseCommitTable.rowKey(id), "row key of " + id);
        }
        org.apache.omid.committable.CommitTable.Writer omidWriter =
                new org.apache.omid.committable.hbase.HBaseCommitTable(hbase,
                        new org.apache.omid.committable.hbase.HBaseCommitTableConfig()).getWriter();
        // Deltas from 1 byte of varint to 9.
        long[] deltas = {1, 950, 1_000_000, 86_400_000L * TimestampLayout.UNITS_PER_MILLI};
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            long commit = id + deltas[i % deltas.length];
            if (i % 2 == 0) {
                omidWriter.addCommittedTransaction(id, commit);
                omidWriter.flush();
                CommitTable.Entry entry = ours.commitTable().lookup(id + 7); // a checkpoint version of it
                assertEquals(CommitTable.Entry.State.COMMITTED, entry.state(), "Omid wrote " + id);
                assertEquals(commit, entry.commitTs(), "Omid wrote " + id);
                ours.commitTable().delete(id);
                assertFalse(omid.commitTable().getCommitTimestamp(id).get().isPresent(), "we deleted " + id);
            } else {
                assertTrue(ours.commitTable().tryCommit(id, commit));
                Optional<CommitTimestamp> seen = omid.commitTable().getCommitTimestamp(id + 7).get();
                assertTrue(seen.isPresent() && seen.get().isValid(), "we wrote " + id + ": " + seen);
                assertEquals(commit, seen.get().getValue(), "we wrote " + id);
                omid.commitTable().deleteCommitEntry(id).get();
                assertEquals(CommitTable.Entry.State.ABSENT, ours.commitTable().lookup(id).state(),
                        "Omid deleted " + id);
            }
        }
        // Invalidation excludes a later commit, in both directions.
        long invalidatedByOmid = ids[0] + 50;
        assertTrue(omid.commitTable().tryInvalidateTransaction(invalidatedByOmid).get());
        assertFalse(ours.commitTable().tryCommit(invalidatedByOmid, invalidatedByOmid + 950));
        long invalidatedByUs = ids[2] + 100;
        assertTrue(ours.commitTable().tryInvalidate(invalidatedByUs));
        assertFalse(omidWriter.atomicAddCommittedTransaction(invalidatedByUs, invalidatedByUs + 950));
        assertTrue(omid.commitTable().getCommitTimestamp(invalidatedByUs).get().isPresent());
        // A commit excludes a later invalidation, in both directions.
        long committedByOmid = ids[3] + 150;
        assertTrue(omidWriter.atomicAddCommittedTransaction(committedByOmid, committedByOmid + 950));
        assertFalse(ours.commitTable().tryInvalidate(committedByOmid));
        long committedByUs = ids[4] + 200;
        assertTrue(ours.commitTable().tryCommit(committedByUs, committedByUs + 950));
        assertFalse(omid.commitTable().tryInvalidateTransaction(committedByUs).get());
    }

    // ------------------------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------------------------

    private static Put threeColumns(byte[] row) {
        return new Put(row).addColumn(F, Q1, Bytes.toBytes("1")).addColumn(F, Q2, Bytes.toBytes("2"))
                .addColumn(G, Q1, Bytes.toBytes("3"));
    }

    /** One of our transactions whose start timestamp is above {@code ts} (so a commit at {@code ts} is visible). */
    private static Transaction oursAfter(long ts) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            Transaction tx = ours.begin();
            if (tx.txId() > ts) {
                return tx;
            }
            ours.abort(tx);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Our TM stays at or below " + ts + ": " + tx.txId());
            }
            Thread.sleep(1);
        }
    }

    private static HBaseTransaction omidAfter(long ts) throws Exception {
        return OmidSide.begin(omid.tm(), start -> start > ts);
    }

    private static String ourValue(Transaction tx, byte[] row, byte[] family, byte[] qualifier) throws IOException {
        try (TransactionalTable t = ours.table(tableName)) {
            byte[] v = t.get(tx, new Get(row).addColumn(family, qualifier)).getValue(family, qualifier);
            return v == null ? null : Bytes.toString(v);
        }
    }

    private static Map<String, String> ourRow(Transaction tx, byte[] row) throws IOException {
        try (TransactionalTable t = ours.table(tableName)) {
            return asMap(t.get(tx, new Get(row)));
        }
    }

    private static Map<String, String> ourScan(Transaction tx, byte[] row) throws IOException {
        try (TransactionalTable t = ours.table(tableName);
             ResultScanner scanner = t.getScanner(tx, new Scan().withStartRow(row).withStopRow(row, true))) {
            Result r = scanner.next();
            return r == null ? Map.of() : asMap(r);
        }
    }

    private static String omidValue(HBaseTransaction tx, byte[] row, byte[] family, byte[] qualifier)
            throws IOException {
        try (TTable t = omid.table(TABLE)) {
            byte[] v = t.get(tx, new Get(row).addColumn(family, qualifier)).getValue(family, qualifier);
            return v == null ? null : Bytes.toString(v);
        }
    }

    private static Map<String, String> omidRow(HBaseTransaction tx, byte[] row) throws IOException {
        try (TTable t = omid.table(TABLE)) {
            return asMap(t.get(tx, new Get(row)));
        }
    }

    private static Map<String, String> omidScan(HBaseTransaction tx, byte[] row) throws IOException {
        try (TTable t = omid.table(TABLE);
             ResultScanner scanner = t.getScanner(tx, new Scan().withStartRow(row).withStopRow(row, true))) {
            Result r = scanner.next();
            return r == null ? Map.of() : asMap(r);
        }
    }

    /** family:qualifier -> value of the newest version; fails on commit cells or markers leaking to the caller. */
    private static Map<String, String> asMap(Result result) {
        Map<String, String> map = new TreeMap<>();
        if (result.isEmpty()) {
            return map;
        }
        for (Cell cell : result.rawCells()) {
            assertFalse(OnDiskLayout.isCommitCell(cell), "commit cell leaked: " + cell);
            assertTrue(cell.getQualifierLength() > 0, "family-delete marker leaked: " + cell);
            map.putIfAbsent(Bytes.toString(CellUtil.cloneFamily(cell)) + ":"
                    + Bytes.toString(CellUtil.cloneQualifier(cell)), Bytes.toString(CellUtil.cloneValue(cell)));
        }
        return map;
    }

    /** Every version of the row, as stored (no snapshot attribute: our observer passes the read through). */
    private static List<Cell> rawRow(byte[] row) throws IOException {
        try (Table t = hbase.getTable(tableName)) {
            Result r = t.get(new Get(row).readAllVersions());
            return r.isEmpty() ? List.of() : List.of(r.rawCells());
        }
    }

    private static Cell rawCell(byte[] row, byte[] family, byte[] qualifier, long version) throws IOException {
        for (Cell cell : rawRow(row)) {
            if (CellUtil.matchingFamily(cell, family) && CellUtil.matchingQualifier(cell, qualifier)
                    && cell.getTimestamp() == version) {
                return cell;
            }
        }
        throw new AssertionError("No raw cell " + Bytes.toStringBinary(family) + ":"
                + Bytes.toStringBinary(qualifier) + "@" + version + " in " + rawRow(row));
    }

    private static List<Cell> commitCells(byte[] row, byte[] family, byte[] qualifier) throws IOException {
        byte[] commitQualifier = OnDiskLayout.commitQualifier(qualifier);
        List<Cell> cells = new ArrayList<>();
        for (Cell cell : rawRow(row)) {
            if (CellUtil.matchingFamily(cell, family) && CellUtil.matchingQualifier(cell, commitQualifier)) {
                cells.add(cell);
            }
        }
        return cells;
    }

    /** A commit cell in our format (and Omid's): our qualifier encoding, the data version, 8-byte commit ts. */
    private static void assertCommitCell(byte[] row, byte[] family, byte[] qualifier, long version, long commitTs)
            throws IOException {
        Cell cell = rawCell(row, family, OnDiskLayout.commitQualifier(qualifier), version);
        assertTrue(OnDiskLayout.isCommitCell(cell));
        assertArrayEquals(qualifier, OnDiskLayout.dataQualifierOf(cell));
        assertEquals(commitTs, OnDiskLayout.commitTimestampOf(cell));
    }

    private static Result rawCommitEntry(long txId) throws IOException {
        try (Table t = hbase.getTable(TableName.valueOf(ours.config().commitTable()))) {
            return t.get(new Get(HBaseCommitTable.rowKey(txId)).readAllVersions());
        }
    }

    /** F:C of the entry is the varint of (commit - start), at version = start, in the row our key names. */
    private static void assertRawCommitEntry(long start, long commit) throws IOException {
        Result entry = rawCommitEntry(start);
        Cell c = entry.getColumnLatestCell(HBaseCommitTable.FAMILY, HBaseCommitTable.COMMIT_QUALIFIER);
        assertNotNull(c, "no F:C in row " + Bytes.toStringBinary(HBaseCommitTable.rowKey(start)) + ": " + entry);
        assertEquals(start, c.getTimestamp());
        assertArrayEquals(varint(commit - start), CellUtil.cloneValue(c));
    }

    private static byte[] varint(long value) {
        byte[] buffer = new byte[10];
        int n = 0;
        long v = value;
        while ((v & ~0x7FL) != 0) {
            buffer[n++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buffer[n++] = (byte) v;
        return java.util.Arrays.copyOf(buffer, n);
    }
}
