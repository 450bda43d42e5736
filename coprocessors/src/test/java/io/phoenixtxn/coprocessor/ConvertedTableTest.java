package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.InMemoryCommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ScriptedTm;
import io.phoenixtxn.client.fastpath.ColumnValue;
import io.phoenixtxn.client.fastpath.FastPathRequest;
import io.phoenixtxn.client.fastpath.FastPathWire;
import io.phoenixtxn.snapshot.FamilyGc;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.PendingStatus;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table made transactional after it was written (Phoenix's {@code data.tx.read.pre.existing=true}): the read
 * filter and compaction-time GC take its pre-switch cells (millisecond versions, no commit cells) as committed at
 * their version, with no look-up; a table created transactional resolves such cells as before (not committed); the
 * region refuses non-transactional writes to a converted table and lets transactional ones through.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConvertedTableTest {
    private static final long NOW = 1_780_000_000_000L;
    private static final byte[] Q1 = Bytes.toBytes("q1");
    private static final byte[] Q2 = Bytes.toBytes("q2");
    /** Pre-switch cells: plain milliseconds. */
    private static final long OLD_WRITE = NOW - 60_000;
    private static final long LAST_WRITE = NOW - 1_000;

    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();

    private static long tx(long millis) {
        return TimestampLayout.firstSlotOfMillis(millis);
    }

    // ---- the descriptor ------------------------------------------------------------------------------------------

    @Test
    void phoenixsMarkerMakesATableConverted() {
        TableDescriptorBuilder t = TableDescriptorBuilder.newBuilder(TableName.valueOf("T"))
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f"));
        assertFalse(ConvertedTable.rule(t.build()).converted());
        assertTrue(ConvertedTable.rule(t.setValue(ConvertedTable.PHOENIX_PRE_EXISTING_DATA, "true").build())
                .converted());
        assertFalse(ConvertedTable.rule(t.setValue(ConvertedTable.PHOENIX_PRE_EXISTING_DATA, "false").build())
                .converted());
    }

    // ---- reads ---------------------------------------------------------------------------------------------------

    @Test
    void aReaderSeesThePreSwitchValueOfEveryColumnWithoutAnyLookUp() throws IOException {
        SyntheticRow row = new SyntheticRow("r")
                .tentative(Q1, OLD_WRITE, "old").tentative(Q1, LAST_WRITE, "last") // two non-transactional writes
                .tentative(Q2, OLD_WRITE, "two");
        List<Cell> read = scan(PreTransactionalCells.CONVERTED, Snapshot.begin(tx(NOW)), row);
        assertEquals(List.of("q1=last", "q2=two"), values(read));
        assertEquals(0, row.commitCellReads(), "pre-switch cells need no commit-cell read");
        assertEquals(0, commitTable.lookups(), "nor a commit-table look-up");
    }

    @Test
    void withoutTheMarkerTheSameCellsAreNotCommitted() throws IOException {
        // What the rule fixes: before it, a converted table's old rows read as aborted writers (fast-path shaped
        // versions without commit cells).
        SyntheticRow row = new SyntheticRow("r").tentative(Q1, LAST_WRITE, "last");
        assertEquals(List.of(), values(scan(PreTransactionalCells.NONE, Snapshot.begin(tx(NOW)), row)));
    }

    @Test
    void transactionalWritesAfterTheSwitchSupersedeAndDeleteThePreSwitchValues() throws IOException {
        long writer = tx(NOW + 10);
        long deleter = tx(NOW + 20);
        SyntheticRow row = new SyntheticRow("r")
                .tentative(Q1, LAST_WRITE, "last").tentative(Q2, LAST_WRITE, "two")
                .committed(Q1, writer, writer + TimestampLayout.SLOT_WIDTH, "updated");
        assertEquals(List.of("q1=updated", "q2=two"),
                values(scan(PreTransactionalCells.CONVERTED, Snapshot.begin(tx(NOW + 15)), row)));
        // A reader that began before the update still reads the pre-switch value.
        assertEquals(List.of("q1=last", "q2=two"),
                values(scan(PreTransactionalCells.CONVERTED, Snapshot.begin(tx(NOW + 5)), row)));
        row.familyDelete(deleter, deleter + TimestampLayout.SLOT_WIDTH);
        assertEquals(List.of(), values(scan(PreTransactionalCells.CONVERTED, Snapshot.begin(tx(NOW + 30)), row)),
                "a row delete after the switch masks the pre-switch cells");
    }

    @Test
    void anAbortedTransactionalWriteAboveThePreSwitchValueStaysInvisible() throws IOException {
        long aborted = tx(NOW + 10);
        commitTable.tryInvalidate(aborted);
        SyntheticRow row = new SyntheticRow("r").tentative(Q1, LAST_WRITE, "last").tentative(Q1, aborted, "rolled");
        assertEquals(List.of("q1=last"), values(scan(PreTransactionalCells.CONVERTED, Snapshot.begin(tx(NOW + 20)),
                row)));
    }

    @Test
    void aPreSwitchCellWithAnEmptyValueIsDataNotATombstone() throws IOException {
        // Phoenix's own ParameterizedTransactionIT writes the empty column with an empty value through HBase before
        // the switch: the row must stay (before the switch, deletes are HBase markers, never empty values).
        SyntheticRow row = new SyntheticRow("r");
        row.cellsForTest().add(new KeyValue(Bytes.toBytes("r"), SyntheticRow.FAMILY, Q1, LAST_WRITE, new byte[0]));
        assertEquals(List.of("q1="), values(scan(PreTransactionalCells.CONVERTED, Snapshot.begin(tx(NOW)), row)));
        List<Cell> cells = new ArrayList<>(List.of(data(Q1, LAST_WRITE, ""), data(Q2, OLD_WRITE, "x")));
        cells.sort(CellComparator.getInstance());
        GcStatusResolver statuses = new GcStatusResolver(new Horizon(tx(NOW), tx(NOW - 10)), new FakeCommitTable(),
                (r, f, q, v) -> Visibility.NOT_COMMITTED, "test", PreTransactionalCells.CONVERTED);
        boolean[] keep = new RowGc(tx(NOW), Long.MIN_VALUE, true, PreTransactionalCells.CONVERTED)
                .decide(cells, statuses, RowGc.OutsideInput.NONE);
        assertTrue(keep[0] && keep[1], "a major compaction keeps the empty-valued pre-switch cell");
    }

    // ---- GC ------------------------------------------------------------------------------------------------------

    @Test
    void gcResolvesPreSwitchCellsAsCommittedAtTheirVersionWithoutLookUps() {
        FakeCommitTable table = new FakeCommitTable();
        GcStatusResolver converted = new GcStatusResolver(new Horizon(tx(NOW), tx(NOW - 10)), table,
                (r, f, q, v) -> Visibility.NOT_COMMITTED, "test", PreTransactionalCells.CONVERTED);
        GcStatusResolver.Resolved resolved = converted.resolve(new byte[] {1}, new byte[] {'f'}, Q1, LAST_WRITE);
        assertEquals(FamilyGc.Status.COMMITTED, resolved.status());
        assertEquals(LAST_WRITE, resolved.commitTs());
        assertEquals(0, table.lookups);
        GcStatusResolver plain = new GcStatusResolver(new Horizon(tx(NOW), tx(NOW - 10)), table,
                (r, f, q, v) -> Visibility.NOT_COMMITTED, "test");
        assertEquals(FamilyGc.Status.ABORTED, plain.resolve(new byte[] {1}, new byte[] {'f'}, Q1, LAST_WRITE).status(),
                "without the marker GC would drop them");
    }

    @Test
    void aMajorCompactionKeepsTheNewestPreSwitchValueAndDropsOnlyWhatIsShadowed() throws IOException {
        List<Cell> cells = new ArrayList<>();
        cells.add(data(Q1, OLD_WRITE, "old"));
        cells.add(data(Q1, LAST_WRITE, "last"));
        cells.add(data(Q2, LAST_WRITE, "two"));
        long writer = tx(NOW - 5_000);
        cells.add(data(Q2, writer, "updated"));
        cells.add(new KeyValue(new byte[] {1}, new byte[] {'f'}, OnDiskLayout.commitQualifier(Q2), writer,
                KeyValue.Type.Put, OnDiskLayout.encodeCommitTimestamp(writer + TimestampLayout.SLOT_WIDTH)));
        cells.sort(CellComparator.getInstance());
        long horizon = tx(NOW);
        GcStatusResolver statuses = new GcStatusResolver(new Horizon(horizon, tx(NOW - 10)), new FakeCommitTable(),
                (r, f, q, v) -> Visibility.NOT_COMMITTED, "test", PreTransactionalCells.CONVERTED);
        boolean[] keep = new RowGc(horizon, Long.MIN_VALUE, true, PreTransactionalCells.CONVERTED)
                .decide(cells, statuses, RowGc.OutsideInput.NONE);
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            if (keep[i] && !OnDiskLayout.isCommitCell(cells.get(i))) {
                kept.add(Bytes.toString(CellUtil.cloneValue(cells.get(i))));
            }
        }
        assertEquals(List.of("last", "updated"), kept);
    }

    @Test
    void aTtlCountsFromThePreSwitchCellsMillisecond() throws IOException {
        long horizon = tx(NOW);
        List<Cell> cells = new ArrayList<>(List.of(data(Q1, LAST_WRITE, "fresh"), data(Q2, OLD_WRITE, "expired")));
        cells.sort(CellComparator.getInstance());
        GcStatusResolver statuses = new GcStatusResolver(new Horizon(horizon, tx(NOW - 10)), new FakeCommitTable(),
                (r, f, q, v) -> Visibility.NOT_COMMITTED, "test", PreTransactionalCells.CONVERTED);
        // TTL of 30 s at the horizon: the write of a minute ago expired, the one of a second ago did not.
        boolean[] keep = new RowGc(horizon, tx(NOW - 30_000), true, PreTransactionalCells.CONVERTED)
                .decide(cells, statuses, RowGc.OutsideInput.NONE);
        assertTrue(keep[0], "q1=fresh");
        assertFalse(keep[1], "q2=expired");
    }

    // ---- writes --------------------------------------------------------------------------------------------------

    @Test
    void aConvertedTableRefusesNonTransactionalWritesAndTakesTransactionalOnes() throws IOException {
        NonTransactionalWriteCheck check = new NonTransactionalWriteCheck(PreTransactionalCells.CONVERTED,
                TableName.valueOf("T"));
        byte[] row = {1};
        byte[] f = {'f'};
        for (org.apache.hadoop.hbase.client.Mutation stale : List.of(
                new Put(row).addColumn(f, Q1, Bytes.toBytes("x")), // the server would stamp its milliseconds
                new Put(row).addColumn(f, Q1, NOW, Bytes.toBytes("x")), // a client's SCN
                new Put(row).addColumn(f, Q1, tx(NOW), Bytes.toBytes("x")).addColumn(f, Q2, NOW, Bytes.toBytes("y")),
                new Delete(row), new Delete(row).addColumns(f, Q1, NOW))) {
            DoNotRetryIOException e = assertThrows(DoNotRetryIOException.class, () -> check.verify(stale));
            assertTrue(e.getMessage().startsWith("ERROR 523 (42900): Table T was made transactional"), e.getMessage());
        }
        check.verify(new Put(row).addColumn(f, Q1, tx(NOW), Bytes.toBytes("x"))
                .addColumn(f, OnDiskLayout.commitQualifier(Q1), tx(NOW), Bytes.toBytes(tx(NOW) + 950)));
        check.verify(new Delete(row).addColumn(f, Q1, tx(NOW) + 1)); // a rollback removes its exact versions
        check.verify(FastPathWire.carrier(row, FastPathRequest.write(FastPathRequest.NO_BOUND,
                List.of(new ColumnValue(f, Q1, Bytes.toBytes(1L)))), null)); // the fast path stamps its own versions
        new NonTransactionalWriteCheck(PreTransactionalCells.NONE, TableName.valueOf("T"))
                .verify(new Put(row).addColumn(f, Q1, Bytes.toBytes("x")));
    }

    @Test
    void aConvertedTableRefusesHBasesOwnReadModifyWritesAndLatestVersionDeletes() throws IOException {
        // Review item 1: these reach preBatchMutate with versions HBase chose (an increment or append is stamped with
        // the server's time, a Delete.addColumn without a timestamp with the column's newest version, which may be a
        // transaction's): none of them is a transactional write.
        NonTransactionalWriteCheck check = new NonTransactionalWriteCheck(PreTransactionalCells.CONVERTED,
                TableName.valueOf("T"));
        byte[] row = {1};
        byte[] f = {'f'};
        for (org.apache.hadoop.hbase.client.Mutation plain : List.<org.apache.hadoop.hbase.client.Mutation>of(
                new Increment(row).addColumn(f, Q1, 1), new Append(row).addColumn(f, Q1, Bytes.toBytes("x")))) {
            DoNotRetryIOException e = assertThrows(DoNotRetryIOException.class, () -> check.verify(plain),
                    plain.getClass().getSimpleName());
            assertTrue(e.getMessage().startsWith("ERROR 523 (42900): Table T was made transactional"), e.getMessage());
        }
        Delete newestVersion = new Delete(row).addColumn(f, Q1); // HBase picks the version under the row lock
        Cell marker = newestVersion.getFamilyCellMap().get(f).get(0);
        DoNotRetryIOException e = assertThrows(DoNotRetryIOException.class,
                () -> check.verifyLatestVersionDelete(marker));
        assertTrue(e.getMessage().contains("was made transactional"), e.getMessage());
        NonTransactionalWriteCheck plainTable = new NonTransactionalWriteCheck(PreTransactionalCells.NONE,
                TableName.valueOf("T"));
        plainTable.verify(new Increment(row).addColumn(f, Q1, 1));
        plainTable.verifyLatestVersionDelete(marker);
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    private List<Cell> scan(PreTransactionalCells rule, Snapshot snapshot, SyntheticRow row) throws IOException {
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        CommitResolver resolver = new CommitResolver(commitTable, 0, () -> tm.tm());
        SnapshotReadFilter filter = new SnapshotReadFilter(snapshot, resolver, row, null, FamilyTtl.ForReader.NONE,
                rule);
        return new ScanDriver(filter, snapshot.maxVersionExclusive(), false).row(row.cells());
    }

    private static KeyValue data(byte[] qualifier, long version, String value) {
        return new KeyValue(new byte[] {1}, new byte[] {'f'}, qualifier, version, KeyValue.Type.Put,
                Bytes.toBytes(value));
    }

    private static List<String> values(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Bytes.toString(CellUtil.cloneQualifier(c)) + "=" + Bytes.toString(CellUtil.cloneValue(c)));
        }
        return out;
    }
}
