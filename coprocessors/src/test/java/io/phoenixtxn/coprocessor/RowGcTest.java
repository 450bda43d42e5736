package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One row of one store through {@link RowGc}, with synthetic cells in the on-disk layout. */
class RowGcTest {
    private static final byte[] ROW = Bytes.toBytes("r");
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q1 = Bytes.toBytes("a");
    private static final byte[] Q2 = Bytes.toBytes("b");
    private static final long GC = TimestampLayout.firstSlotOfMillis(10_000);
    private static final long SAFE = TimestampLayout.firstSlotOfMillis(9_000);

    private final FakeCommitTable table = new FakeCommitTable();
    private final GcStatusResolver statuses = new GcStatusResolver(new Horizon(GC, SAFE), table,
            (row, family, qualifier, version) -> Visibility.NOT_COMMITTED, "test");
    private final List<Cell> cells = new ArrayList<>();

    /** The tx id of the {@code n}th writer (millisecond n, below the horizon for n < 9_000). */
    private static long tx(int n) {
        return TimestampLayout.firstSlotOfMillis(n);
    }

    private void data(byte[] qualifier, long version, String value) {
        cells.add(new KeyValue(ROW, F, qualifier, version, KeyValue.Type.Put, Bytes.toBytes(value)));
    }

    private void tombstone(byte[] qualifier, long version) {
        cells.add(new KeyValue(ROW, F, qualifier, version, KeyValue.Type.Put, new byte[0]));
    }

    private void commit(byte[] qualifier, long version, long commitTs) {
        cells.add(new KeyValue(ROW, F, OnDiskLayout.commitQualifier(qualifier), version, KeyValue.Type.Put,
                Bytes.toBytes(commitTs)));
    }

    private void committed(byte[] qualifier, long version, long commitTs, String value) {
        data(qualifier, version, value);
        commit(qualifier, version, commitTs);
    }

    /** The kept cells, as "qualifier@version" with commit cells as "C(qualifier)@version", in input order. */
    private List<String> kept(boolean major, RowGc.OutsideInput outside) throws IOException {
        cells.sort(CellComparator.getInstance());
        boolean[] keep = new RowGc(GC, Long.MIN_VALUE, major).decide(cells, statuses, outside);
        return describe(keep);
    }

    private List<String> describe(boolean[] keep) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            if (keep[i]) {
                Cell c = cells.get(i);
                String name = OnDiskLayout.isCommitCell(c) ? "C(" + Bytes.toString(OnDiskLayout.dataQualifierOf(c))
                        + ")" : Bytes.toString(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
                kept.add(name + "@" + (c.getTimestamp() / TimestampLayout.UNITS_PER_MILLI)
                        + (c.getType() == Cell.Type.Put ? "" : ":" + c.getType()));
            }
        }
        return kept;
    }

    @Test
    void aHotColumnKeepsItsNewestSettledVersionWithItsCommitCell() throws IOException {
        for (int n = 1; n <= 50; n++) {
            committed(Q1, tx(n * 10), tx(n * 10 + 1), "v" + n);
        }
        committed(Q1, tx(9_500), tx(11_000), "above"); // committed above the horizon: kept
        assertEquals(List.of("C(a)@9500", "C(a)@500", "a@9500", "a@500"), kept(true, RowGc.OutsideInput.NONE));
        assertEquals(List.of("C(a)@9500", "C(a)@500", "a@9500", "a@500"), kept(false, RowGc.OutsideInput.NONE));
    }

    @Test
    void anOrphanCommitCellGoesOnlyWhenTheInputIsEveryFile() throws IOException {
        commit(Q2, tx(40), tx(41)); // its data version is in another file, or was collected
        committed(Q1, tx(50), tx(51), "x");
        assertEquals(List.of("C(a)@50", "a@50"), kept(true, RowGc.OutsideInput.NONE));
        assertEquals(List.of("C(a)@50", "C(b)@40", "a@50"), kept(false, RowGc.OutsideInput.NONE));
    }

    @Test
    void aCommitCellWhoseDataIsAbsentStaysInAMinorCompactionEvenIfTheDataShadowsIt() throws IOException {
        committed(Q1, tx(50), tx(51), "new");
        commit(Q1, tx(20), tx(21)); // data version in a file outside this minor compaction
        assertEquals(List.of("C(a)@50", "C(a)@20", "a@50"), kept(false, RowGc.OutsideInput.NONE));
    }

    @Test
    void hbaseDeleteMarkersPassUntouched() throws IOException {
        committed(Q1, tx(10), tx(11), "old");
        committed(Q1, tx(20), tx(21), "new");
        cells.add(new KeyValue(ROW, F, Q1, tx(15), KeyValue.Type.Delete));
        assertEquals(List.of("C(a)@20", "a@20", "a@15:Delete"), kept(true, RowGc.OutsideInput.NONE));
    }

    @Test
    void aMalformedCommitCellKeepsTheRow() throws IOException {
        committed(Q1, tx(10), tx(11), "old");
        committed(Q1, tx(20), tx(21), "new");
        cells.add(new KeyValue(ROW, F, OnDiskLayout.commitQualifier(Q2), tx(5), KeyValue.Type.Put, new byte[3]));
        assertEquals(cells.size(), kept(true, RowGc.OutsideInput.NONE).size());
    }

    @Test
    void aVersionNoOneCanResolveKeepsTheFamily() throws IOException {
        table.unreachable = true;
        committed(Q1, tx(10), tx(11), "old");
        committed(Q1, tx(20), tx(21), "new");
        data(Q2, tx(30), "undecided, commit table unreachable");
        assertEquals(5, kept(true, RowGc.OutsideInput.NONE).size());
    }

    @Test
    void abortedVersionsGoAndTheirMarkersAreReported() throws IOException {
        long invalidated = tx(9_200); // between the horizons: may still commit, so it gets a marker
        table.tryInvalidate(invalidated);
        data(Q1, invalidated, "rolled back");
        data(Q1, tx(100), "crashed below the commit-point horizon");
        committed(Q1, tx(50), tx(51), "kept");
        RowGc gc = new RowGc(GC, Long.MIN_VALUE, false);
        cells.sort(CellComparator.getInstance());
        boolean[] keep = gc.decide(cells, statuses, RowGc.OutsideInput.NONE);
        assertEquals(List.of("C(a)@50", "a@50"), describe(keep));
        assertEquals(List.of(invalidated), gc.droppedInvalidated());
    }

    @Test
    void aFlushDropsOnlyAbortedVersions() throws IOException {
        committed(Q1, tx(10), tx(11), "shadowed, but an open scanner may read it");
        committed(Q1, tx(20), tx(21), "new");
        data(Q1, tx(100), "crashed below the commit-point horizon");
        cells.sort(CellComparator.getInstance());
        boolean[] keep = new RowGc(Long.MIN_VALUE, Long.MIN_VALUE, false).decide(cells, statuses,
                RowGc.OutsideInput.NONE);
        assertEquals(List.of("C(a)@20", "C(a)@10", "a@20", "a@10"), describe(keep));
    }

    @Test
    void aTombstoneStaysWhenOlderVersionsOutsideTheInputMayExist() throws IOException {
        committed(Q1, tx(10), tx(11), "old");
        tombstone(Q1, tx(20));
        commit(Q1, tx(20), tx(21));
        committed(Q2, tx(15), tx(16), "other");
        AtomicLong askedBelow = new AtomicLong();
        RowGc.OutsideInput memstoreHoldsAnOlderVersion = (row, family, below, input) -> {
            askedBelow.set(below);
            assertTrue(input.contains(new RowGc.CellKey(Q1, tx(10))), input.toString());
            return true;
        };
        assertEquals(List.of("C(a)@20", "C(b)@15", "a@20", "b@15"), kept(true, memstoreHoldsAnOlderVersion),
                "partial-compaction verdicts: the tombstone keeps masking");
        assertEquals(tx(20), askedBelow.get());
        assertEquals(List.of("C(b)@15", "b@15"), kept(true, (row, family, below, input) -> false));
    }

    @Test
    void aFamilyDeleteIsCheckedAgainstCellsThatCommittedBeforeIt() throws IOException {
        committed(Q1, tx(10), tx(11), "deleted");
        tombstone(OnDiskLayout.FAMILY_DELETE_QUALIFIER, tx(20));
        commit(OnDiskLayout.FAMILY_DELETE_QUALIFIER, tx(20), tx(25));
        AtomicLong askedBelow = new AtomicLong();
        assertEquals(List.of(), kept(true, (row, family, below, input) -> {
            askedBelow.set(below);
            return false;
        }));
        assertEquals(tx(25), askedBelow.get(), "anything that committed before the delete is masked by it");
        // A partial compaction keeps the delete, and what it masks (an older version in another file may have
        // committed after the delete: without the masked version, readers would fall through to it).
        assertEquals(List.of("@20", "C(a)@10", "C()@20", "a@10"), kept(false, RowGc.OutsideInput.NONE));
    }

    @Test
    void noOutsideLookUpWhenMajorAndMinorAgree() throws IOException {
        committed(Q1, tx(10), tx(11), "old");
        committed(Q1, tx(20), tx(21), "new");
        assertEquals(List.of("C(a)@20", "a@20"), kept(true, (row, family, below, input) -> {
            throw new AssertionError("nothing only a major compaction drops");
        }));
    }

    @Test
    void legacyCommitQualifiersMapToTheirData() throws IOException {
        committed(Q1, tx(10), tx(11), "old");
        data(Q1, tx(20), "new");
        byte[] legacy = Bytes.add(Q1, OnDiskLayout.COMMIT_QUALIFIER_SUFFIX); // Omid before the prefix
        cells.add(new KeyValue(ROW, F, legacy, tx(20), KeyValue.Type.Put, Bytes.toBytes(tx(21))));
        List<String> kept = kept(true, RowGc.OutsideInput.NONE);
        assertEquals(List.of("a@20", "C(a)@20"), kept);
        assertEquals(0, table.lookups, "the legacy commit cell resolved the version");
    }

    @Test
    void expiredValuesGoWithTheirCommitCellsInAMajorCompaction() throws IOException {
        committed(Q1, tx(10), tx(11), "expired");
        committed(Q2, tx(9_500), tx(9_501), "fresh");
        cells.sort(CellComparator.getInstance());
        boolean[] keep = new RowGc(GC, tx(9_000), true).decide(cells, statuses, RowGc.OutsideInput.NONE);
        assertEquals(List.of("C(b)@9500", "b@9500"), describe(keep));
    }
    /** A fast-path version of slot {@code slot} (VLDB'18 sec. 4: offsets 50..949 of a TM slot). */
    private static long fastPath(long slot, int n) {
        return slot + TimestampLayout.FAST_PATH_FIRST_OFFSET + n;
    }

    /** Fast-path writes put data and commit cell together at one version, which is also the commit timestamp. */
    private void fastPathCommitted(byte[] qualifier, long version, String value) {
        committed(qualifier, version, version, value);
    }

    /** The kept cells as "qualifier@version" with full versions (fast-path offsets are not whole milliseconds). */
    private List<String> keptExactly(boolean major, long horizon) throws IOException {
        cells.sort(CellComparator.getInstance());
        boolean[] keep = new RowGc(horizon, Long.MIN_VALUE, major).decide(cells, statuses, RowGc.OutsideInput.NONE);
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            if (keep[i]) {
                Cell c = cells.get(i);
                String name = OnDiskLayout.isCommitCell(c) ? "C(" + Bytes.toString(OnDiskLayout.dataQualifierOf(c))
                        + ")" : Bytes.toString(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
                kept.add(name + "@" + c.getTimestamp());
            }
        }
        return kept;
    }

    @Test
    void theNewestFastPathCommitIsKeptWithItsCommitCellAndOlderOnesGo() throws IOException {
        long slot = tx(100);
        committed(Q1, tx(50), tx(51), "regular, shadowed by the fast-path writes");
        for (int n = 0; n < 5; n++) {
            fastPathCommitted(Q1, fastPath(slot, n), "fp" + n);
        }
        long newest = fastPath(slot, 4);
        List<String> expected = List.of("C(a)@" + newest, "a@" + newest);
        assertEquals(expected, keptExactly(true, GC));
        assertEquals(expected, keptExactly(false, GC));
        assertEquals(0, table.lookups, "fast-path versions resolve by their own commit cells");
    }

    @Test
    void fastPathVersionsInTheSlotOfAnAbortedTransactionAreNotTakenForIt() throws IOException {
        long slot = tx(9_200); // a regular transaction between the horizons, invalidated: its version goes
        table.tryInvalidate(slot);
        data(Q1, slot, "rolled back");
        fastPathCommitted(Q1, fastPath(slot, 0), "fast path, same slot, committed after the abort");
        committed(Q2, tx(60), tx(61), "other column");
        long v = fastPath(slot, 0);
        assertEquals(List.of("C(a)@" + v, "C(b)@" + tx(60), "a@" + v, "b@" + tx(60)), keptExactly(true, GC));
    }

    @Test
    void fastPathCommitsAboveTheHorizonAreKeptWithTheNewestBelowIt() throws IOException {
        long below = fastPath(tx(8_000), 7);
        long above = fastPath(GC, 0); // in the horizon's own slot: above the oldest reader's start
        fastPathCommitted(Q1, fastPath(tx(8_000), 6), "shadowed");
        fastPathCommitted(Q1, below, "what the oldest reader reads");
        fastPathCommitted(Q1, above, "newest");
        List<String> expected = List.of("C(a)@" + above, "C(a)@" + below, "a@" + above, "a@" + below);
        assertEquals(expected, keptExactly(true, GC));
    }

    @Test
    void aFlushKeepsEveryFastPathCommit() throws IOException {
        fastPathCommitted(Q1, fastPath(tx(10), 0), "old");
        fastPathCommitted(Q1, fastPath(tx(10), 1), "new");
        List<String> kept = keptExactly(false, Long.MIN_VALUE);
        assertEquals(4, kept.size(), kept.toString());
    }
}
