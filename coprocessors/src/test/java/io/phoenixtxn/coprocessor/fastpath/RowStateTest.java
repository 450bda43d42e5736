package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.phoenixtxn.coprocessor.fastpath.RowCells.F;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.fp;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.q;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.slot;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the fast path decides about one row: newest committed values, pending writers, the row's version. */
class RowStateTest {

    @Test
    void theNewestCommittedVersionIsTheRowsValueAndVersion() throws Exception {
        RowState s = new RowCells().committed("v", fp(1, 0), fp(1, 0), 10).committed("v", fp(1, 1), fp(1, 1), 11)
                .analyze();
        assertEquals(fp(1, 1), s.version());
        assertArrayEquals(Bytes.toBytes(11L), s.committedValue(F, q("v")));
        assertEquals(fp(1, 1), s.newestFastPathCommit());
        assertTrue(s.pendingWriters().isEmpty());
    }

    @Test
    void aRegularCommitCountsWithItsCommitTimestampNotItsVersion() throws Exception {
        RowState s = new RowCells().committed("v", slot(1), slot(2), 1).analyze();
        assertEquals(slot(2), s.version());
        assertEquals(-1, s.newestFastPathCommit(), "no fast-path version");
    }

    @Test
    void aPendingWriterAboveTheNewestCommitIsReportedAndSkipped() throws Exception {
        RowCells row = new RowCells().committed("v", slot(1), slot(2), 1).tentative("v", slot(3), 2);
        RowState s = row.analyze();
        assertEquals(List.of(slot(3)), s.pendingWriters());
        assertArrayEquals(Bytes.toBytes(1L), s.committedValue(F, q("v")));
        assertEquals(slot(2), s.version());
        assertEquals(1, row.questions());
    }

    @Test
    void aVersionCommittedOnlyInTheCommitTableIsCommitted() throws Exception {
        RowState s = new RowCells().committed("v", slot(1), slot(2), 1).tentative("v", slot(3), 2)
                .inCommitTable(slot(3), slot(4)).analyze();
        assertTrue(s.pendingWriters().isEmpty());
        assertArrayEquals(Bytes.toBytes(2L), s.committedValue(F, q("v")));
        assertEquals(slot(4), s.version());
    }

    @Test
    void anInvalidatedWriterIsIgnored() throws Exception {
        RowState s = new RowCells().committed("v", slot(1), slot(2), 1).tentative("v", slot(3), 2)
                .inCommitTable(slot(3), -1).analyze();
        assertTrue(s.pendingWriters().isEmpty());
        assertArrayEquals(Bytes.toBytes(1L), s.committedValue(F, q("v")));
    }

    @Test
    void anotherVersionOfTheSameWriterWithACommitCellDecidesWithoutAQuestion() throws Exception {
        RowCells row = new RowCells().committed("a", slot(1) + 1, slot(2), 1).tentative("b", slot(1) + 2, 2);
        RowState s = row.analyze();
        assertArrayEquals(Bytes.toBytes(2L), s.committedValue(F, q("b")));
        assertEquals(0, row.questions());
    }

    @Test
    void tombstonesAndFamilyDeletesAreNoValuesButMoveTheVersion() throws Exception {
        RowState s = new RowCells().committed("a", fp(1, 0), fp(1, 0), 1).committed("b", fp(1, 1), fp(1, 1), 2)
                .tombstone("a", fp(1, 2), fp(1, 2)).analyze();
        assertNull(s.committedValue(F, q("a")));
        assertArrayEquals(Bytes.toBytes(2L), s.committedValue(F, q("b")));
        assertEquals(fp(1, 2), s.version());

        RowState deleted = new RowCells().committed("a", fp(1, 0), fp(1, 0), 1).familyDelete(fp(1, 1), fp(1, 1))
                .analyze();
        assertNull(deleted.committedValue(F, q("a")));
        assertEquals(fp(1, 1), deleted.version());
        assertTrue(deleted.visibleCells(Map.of()).isEmpty());

        RowState reinserted = new RowCells().familyDelete(fp(1, 1), fp(1, 1)).committed("a", fp(1, 2), fp(1, 2), 3)
                .analyze();
        List<Cell> visible = reinserted.visibleCells(Map.of());
        assertEquals(1, visible.size());
        assertArrayEquals(Bytes.toBytes(3L), reinserted.committedValue(F, q("a")));
    }

    @Test
    void aPendingFamilyDeleteIsAPendingWriterOfTheRow() throws Exception {
        RowState s = new RowCells().committed("a", fp(1, 0), fp(1, 0), 1).familyDelete(slot(2),
                Visibility.NOT_COMMITTED).analyze();
        assertEquals(List.of(slot(2)), s.pendingWriters());
        assertArrayEquals(Bytes.toBytes(1L), s.committedValue(F, q("a")));
    }

    @Test
    void aColumnReadOnlyInPartIsUndecidedUntilReadWhole() throws Exception {
        RowCells row = new RowCells();
        for (int i = 0; i < 3; i++) {
            row.tentative("v", slot(10 + i), i);
        }
        row.inCommitTable(slot(10), -1).inCommitTable(slot(11), -1).inCommitTable(slot(12), -1);
        RowState prefix = RowState.analyze(RowCells.ROW, row.cells(), row.resolver(), 3);
        assertEquals(1, prefix.undecidedColumns().size());
        RowState whole = RowState.analyze(RowCells.ROW, row.cells(), row.resolver(), 0);
        assertTrue(whole.undecidedColumns().isEmpty());
        assertEquals(0, whole.version());
    }

    /** A family TTL hides expired values from brc and brwc, as transactional readers rule; the version counts them. */
    @Test
    void valuesWhoseCommitExpiredByTheFamilysTtlAreNotVisible() throws Exception {
        long later = TimestampLayout.firstSlotOfMillis(RowCells.MILLIS + 10_000);
        RowState s = new RowCells().committed("old", fp(1, 0), fp(1, 0), 10)
                .committed("new", later + 50, later + 50, 11).analyze()
                .expiring(family -> TimestampLayout.firstSlotOfMillis(RowCells.MILLIS + 5_000));
        assertNull(s.committedValue(F, q("old")), "expired: a brwc computes from it as absent");
        assertArrayEquals(Bytes.toBytes(11L), s.committedValue(F, q("new")));
        List<Cell> visible = s.visibleCells(Map.of());
        assertEquals(1, visible.size(), "brc returns only the live value: " + visible);
        assertEquals(later + 50, s.version(), "the row's version counts every commit");
    }
}
