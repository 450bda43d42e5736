package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.InMemoryCommitTable;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.phoenixtxn.coprocessor.fastpath.RowCells.F;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.ROW;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.q;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.slot;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast path on a table made transactional after it was written (review item 7): a pre-switch cell (millisecond
 * version, no commit cell) is committed at its version ({@link PreTransactionalCells}), decided before any writer
 * look-up. Without the rule its "writer" lies below the commit-point horizon and reads as aborted: a brc would miss
 * the row and a brwc would compute from nothing. An empty value or an empty qualifier is data there; a TTL counts from
 * the cell's millisecond.
 */
class PreSwitchRowTest {
    private static final long OLD = RowCells.MILLIS - 60_000;
    private static final long LAST = RowCells.MILLIS - 1_000;

    private final List<Cell> cells = sorted(
            new KeyValue(ROW, F, q("v"), OLD, Bytes.toBytes("old")),
            new KeyValue(ROW, F, q("v"), LAST, Bytes.toBytes("last")),
            new KeyValue(ROW, F, q("e"), LAST, new byte[0]), // Phoenix's empty column: data, not a tombstone
            new KeyValue(ROW, F, new byte[0], OLD, Bytes.toBytes("x"))); // data, not a family delete

    @Test
    void aFastPathWriteReadsPreSwitchCellsAsCommittedNotAsDeadWriters() throws Exception {
        InMemoryCommitTable commitTable = new InMemoryCommitTable();
        Region region = FakeRowRegion.of(() -> cells);
        RowReader rows = new RowReader(region, commitTable, () -> new Horizon(slot(10), slot(5)),
                PreTransactionalCells.CONVERTED);

        RowState state = rows.readForWrite(ROW);

        assertEquals("last", Bytes.toString(state.committedValue(F, q("v"))));
        assertArrayEquals(new byte[0], state.committedValue(F, q("e")));
        assertArrayEquals(Bytes.toBytes("x"), state.committedValue(F, new byte[0]));
        assertEquals(LAST, state.version(), "the row's version is its newest pre-switch commit");
        assertTrue(state.pendingWriters().isEmpty());
        assertSame(CommitTable.Entry.State.ABSENT, commitTable.lookup(TimestampLayout.txIdOf(LAST)).state());
    }

    @Test
    void preSwitchCellsAreDecidedWithoutAskingAndTheirTtlCountsFromTheirMillisecond() throws Exception {
        int[] asked = {0};
        RowState state = RowState.analyze(ROW, cells, (family, qualifier, version) -> {
            asked[0]++;
            return io.phoenixtxn.snapshot.Visibility.NOT_COMMITTED;
        }, 0, PreTransactionalCells.CONVERTED);
        assertEquals(0, asked[0], "no writer look-up for a pre-switch cell");
        RowState ttl = state.expiring(family -> TimestampLayout.firstSlotOfMillis(LAST - 10_000));
        assertEquals("last", Bytes.toString(ttl.committedValue(F, q("v"))), "written 1 s ago, 10 s TTL");
        assertEquals(null, ttl.committedValue(F, new byte[0]), "written 60 s ago: expired");
        assertEquals(List.of("e", "v"), qualifiers(ttl.visibleCells(java.util.Map.of())));
    }

    private static List<String> qualifiers(List<Cell> visible) {
        List<String> out = new ArrayList<>();
        for (Cell cell : visible) {
            out.add(Bytes.toString(org.apache.hadoop.hbase.CellUtil.cloneQualifier(cell)));
        }
        return out;
    }

    private static List<Cell> sorted(Cell... cells) {
        List<Cell> out = new ArrayList<>(List.of(cells));
        out.sort(CellComparator.getInstance());
        return out;
    }
}
