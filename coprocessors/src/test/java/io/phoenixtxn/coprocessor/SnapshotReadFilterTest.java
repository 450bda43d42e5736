package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.InMemoryCommitTable;
import io.phoenixtxn.client.ScriptedTm;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.VisibilityLevel;
import io.phoenixtxn.tm.PendingStatus;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.coprocessor.SyntheticRow.q;
import static io.phoenixtxn.coprocessor.SyntheticRow.tx;
import static io.phoenixtxn.snapshot.Visibility.NOT_COMMITTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SnapshotReadFilter} driven the way a region's store scanner drives a filter ({@link ScanDriver}), over
 * synthetic rows ({@link SyntheticRow}): committed versions carry commit cells, pending ones are settled by a
 * {@link CommitResolver} over an in-memory commit table and a scripted TM. Besides what a read returns, the tests
 * count what it costs (cells offered to the filter, hints, commit-cell reads and commit-table look-ups), so that a
 * read proportional to the row's history cannot come back unnoticed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SnapshotReadFilterTest {
    private static final byte[] Q1 = q("q1");
    private static final byte[] Q2 = q("q2");
    /** The reader of most tests; history is written by tx(0 .. 2N) well below it. */
    private static final long READER = tx(100_000);

    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();
    /** Pending writers are UNKNOWN to the TM unless a test says otherwise: wait (0 ms) and force-abort. */
    private ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());

    // ---- history ------------------------------------------------------------------------------------------------

    @Test
    void aPointReadOfAHotRowLooksAtTheSameFewCellsWhateverItsHistory() throws IOException {
        for (int versions : new int[] {1, 10, 20_000}) {
            SyntheticRow row = hotRow(versions);
            ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
            assertEquals(List.of("q1=v" + (versions - 1), "q2=w" + (versions - 1)),
                    values(scan.row(row.offHeapCells())));
            // One commit cell and one data cell per column: the newest of each, nothing of the history.
            assertEquals(4, scan.offered(), "cells offered to the filter for a history of " + versions);
            assertEquals(0, row.commitCellReads(), "no version needed resolving");
            assertEquals(0, commitTable.lookups(), "no version needed the commit table");
        }
    }

    @Test
    void skippingCellsAllocatesNothing() throws IOException {
        // Worst case for a reader: 20,000 versions that started before it and committed after it, above the one it
        // sees. Every one must be looked at; none may cost an allocation once the filter's arrays have grown.
        SyntheticRow row = new SyntheticRow("r").committed(Q1, tx(1), tx(2), "old");
        for (int i = 0; i < 20_000; i++) {
            row.committed(Q1, tx(50_000 + i), tx(100_001 + i), "late" + i);
        }
        List<Cell> cells = row.offHeapCells();
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q1=old"), values(scan.row(cells)));
        int offeredOnce = scan.offered();
        long allocated = allocatedBy(() -> scan.row(cells));
        assertEquals(2 * offeredOnce, scan.offered());
        assertTrue(allocated < offeredOnce, "allocated " + allocated + " bytes for " + offeredOnce + " cells");

        // A reversed scan without a time range, over versions written after its reader: skipped one by one (HBase
        // would not honour an in-row seek there), without building a hint for each.
        SyntheticRow newer = hotRow(20_000);
        List<Cell> newerCells = newer.offHeapCells();
        ScanDriver reversed = new ScanDriver(filter(Snapshot.begin(tx(29)), null, newer), true);
        assertEquals(List.of("q1=v9", "q2=w9"), values(reversed.row(newerCells)));
        int offeredReversed = reversed.offered();
        long allocatedReversed = allocatedBy(() -> reversed.row(newerCells));
        assertEquals(0, reversed.hints());
        assertTrue(allocatedReversed < offeredReversed, "allocated " + allocatedReversed + " bytes for "
                + offeredReversed + " cells");
    }

    @Test
    void commitCellsOfVersionsWrittenAfterTheReaderStartedAreSoughtPast() throws IOException {
        // A scan without the snapshot's time range (a plain HBase client may send one); the reader started at tx(29).
        SyntheticRow row = hotRow(1_000);
        ScanDriver forward = new ScanDriver(filter(Snapshot.begin(tx(29)), null, row), false);
        assertEquals(List.of("q1=v9", "q2=w9"), values(forward.row(row.cells())));
        assertEquals(4, forward.honouredHints(), "one seek past the newer versions of each column's commit cells"
                + " and data");
        assertEquals(8, forward.offered());

        ScanDriver reversed = new ScanDriver(filter(Snapshot.begin(tx(29)), null, row), true);
        assertEquals(List.of("q1=v9", "q2=w9"), values(reversed.row(row.cells())));
        assertEquals(0, reversed.hints(), "a reversed scan would not honour in-row seeks");
    }

    // ---- own writes and visibility levels -----------------------------------------------------------------------

    @Test
    void ownWritesAtEveryLevelAboveALongHistory() throws IOException {
        SyntheticRow row = hotRow(5_000)
                .tentative(Q1, READER, "own0").tentative(Q1, READER + 1, "own1").tentative(Q1, READER + 2, "own2");
        Snapshot atCheckpoint2 = Snapshot.begin(READER).checkpoint().checkpoint(); // read R+1, write R+2
        Map<VisibilityLevel, List<String>> expected = new LinkedHashMap<>();
        expected.put(VisibilityLevel.SNAPSHOT, List.of("q1=own2", "q2=w4999"));
        expected.put(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, List.of("q1=own1", "q2=w4999"));
        expected.put(VisibilityLevel.SNAPSHOT_ALL, List.of("q1=own2", "q1=own1", "q1=own0", "q1=v4999", "q2=w4999"));
        for (Map.Entry<VisibilityLevel, List<String>> level : expected.entrySet()) {
            ScanDriver scan = snapshotScan(atCheckpoint2.withLevel(level.getKey()), null, row);
            assertEquals(level.getValue(), values(scan.row(row.cells())), level.getKey().name());
            assertTrue(scan.offered() <= 7, level.getKey() + " offered " + scan.offered());
        }
        // At checkpoint 0 with SNAPSHOT_EXCLUDE_CURRENT no own write is visible: the newest committed one is.
        Snapshot first = Snapshot.begin(READER).withLevel(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
        assertEquals(List.of("q1=v4999", "q2=w4999"), values(snapshotScan(first, null, row).row(row.cells())));
        assertEquals(0, commitTable.lookups());
        assertEquals(0, row.commitCellReads());
    }

    // ---- family deletes and tombstones --------------------------------------------------------------------------

    @Test
    void aCommittedRowDeleteHidesTheHistoryBelowIt() throws IOException {
        SyntheticRow row = hotRow(5_000).familyDelete(tx(20_000), tx(20_001));
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of(), values(scan.row(row.cells())));
        assertEquals(6, scan.offered(), "the marker, three commit cells (q1, q2, the marker's) and q1, q2");
        assertEquals(0, row.commitCellReads(), "the marker's commit cell is met later in the scan: no region read");
    }

    @Test
    void aRowDeletedManyTimesReadsAtMostOneMarkerCommitCellFromTheRegion() throws IOException {
        SyntheticRow row = new SyntheticRow("r");
        for (int i = 0; i < 100; i++) { // insert, then delete, 100 times (tx(5i+2) free for readers); one last insert
            row.committed(Q1, tx(5 * i), tx(5 * i + 1), "v" + i).familyDelete(tx(5 * i + 3), tx(5 * i + 4));
        }
        row.committed(Q2, tx(500), tx(501), "last");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q2=last"), values(scan.row(row.cells())));
        assertTrue(row.commitCellReads() <= 1, row.commitCellReads() + " commit-cell reads");
        assertTrue(scan.offered() <= 16, "offered " + scan.offered());
        // A reader between two deletes sees the insert in between.
        assertEquals(List.of("q1=v50"), values(snapshotScan(Snapshot.begin(tx(5 * 50 + 2)), null, row)
                .row(row.cells())));
    }

    @Test
    void aPendingNewestRowDeleteLeavesTheOlderCommittedOneInForce() throws IOException {
        long pendingDeleter = tx(6_000);
        tm = ScriptedTm.answering(txId -> txId == pendingDeleter ? PendingStatus.notDecided()
                : PendingStatus.unknown());
        SyntheticRow row = hotRow(1_000).familyDelete(tx(5_000), tx(5_001))
                .committed(Q2, tx(5_003), tx(5_004), "after-delete").familyDelete(pendingDeleter, NOT_COMMITTED);
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q2=after-delete"), values(scan.row(row.cells())));
        assertEquals(List.of(pendingDeleter), tm.asked());
        assertEquals(1, row.commitCellReads(), "only the pending marker is resolved through the region");
    }

    @Test
    void dataSortingBetweenTheMarkersAndTheirCommitCellsIsMaskedCorrectly() throws IOException {
        byte[] zeroA = {0x00, 'a'}; // sorts after the markers and before their commit cells (00 C2 80 C2 80)
        SyntheticRow row = new SyntheticRow("r").committed(zeroA, tx(1), tx(2), "a-old")
                .familyDelete(tx(10), tx(11)).committed(Q1, tx(12), tx(13), "q1-new");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q1=q1-new"), values(scan.row(row.cells())));
        assertEquals(List.of("a-old"), rawValues(snapshotScan(Snapshot.begin(tx(11)), null, row).row(row.cells())),
                "a reader that started before the delete committed");
    }

    @Test
    void aRowReinsertedAfterItsDeleteShowsTheNewValuesOnly() throws IOException {
        SyntheticRow row = hotRow(5_000).familyDelete(tx(20_000), tx(20_002))
                .committed(Q2, tx(20_004), tx(20_005), "again");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q2=again"), values(scan.row(row.cells())));
        assertEquals(6, scan.offered());
        // A reader that started between the delete's commit and the re-insert sees nothing; one that started before
        // the delete committed sees the old row.
        assertEquals(List.of(), values(snapshotScan(Snapshot.begin(tx(20_003)), null, row).row(row.cells())));
        assertEquals(List.of("q1=v4999", "q2=w4999"),
                values(snapshotScan(Snapshot.begin(tx(20_001)), null, row).row(row.cells())));
    }

    @Test
    void aRowDeleteThatIsPendingOrCommittedAfterTheReaderStartedHidesNothing() throws IOException {
        long pendingDeleter = tx(20_000);
        tm = ScriptedTm.answering(txId -> txId == pendingDeleter ? PendingStatus.notDecided()
                : PendingStatus.unknown());
        SyntheticRow pending = hotRow(5_000).familyDelete(pendingDeleter, NOT_COMMITTED);
        assertEquals(List.of("q1=v4999", "q2=w4999"),
                values(snapshotScan(Snapshot.begin(READER), null, pending).row(pending.cells())));
        assertEquals(List.of(pendingDeleter), tm.asked(), "the TM was asked once, about the deleter");
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(pendingDeleter).state(),
                "a writer the TM has not decided is not aborted");

        SyntheticRow late = hotRow(5_000).familyDelete(tx(20_000), tx(100_001));
        assertEquals(List.of("q1=v4999", "q2=w4999"),
                values(snapshotScan(Snapshot.begin(READER), null, late).row(late.cells())));
    }

    @Test
    void ownRowDeleteAndReinsertInOneTransaction() throws IOException {
        SyntheticRow row = hotRow(100).familyDelete(READER, NOT_COMMITTED).tentative(Q1, READER + 1, "new");
        Snapshot afterDelete = Snapshot.begin(READER);
        assertEquals(List.of(), values(snapshotScan(afterDelete, null, row).row(row.cells())),
                "the own delete at the write pointer masks the committed row");
        Snapshot afterReinsert = afterDelete.step();
        assertEquals(List.of("q1=new"), values(snapshotScan(afterReinsert, null, row).row(row.cells())));
        // SNAPSHOT_ALL (index rollback): every own version, and the newest committed one below them unless masked.
        assertEquals(List.of("q1=new"), values(snapshotScan(afterReinsert.withLevel(VisibilityLevel.SNAPSHOT_ALL),
                null, row).row(row.cells())));
    }

    @Test
    void aColumnDeletedLastIsHiddenAndItsHistoryIsNotRead() throws IOException {
        SyntheticRow row = hotRow(5_000);
        row.tentative(Q1, tx(20_000), null).commitCell(Q1, tx(20_000), tx(20_001));
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q2=w4999"), values(scan.row(row.cells())));
        assertEquals(4, scan.offered());
    }

    // ---- versions without a commit cell -------------------------------------------------------------------------

    @Test
    void aPendingVersionAboveTheNewestCommittedOneIsResolvedOnce() throws IOException {
        SyntheticRow row = hotRow(5_000).tentative(Q1, tx(20_000), "pending");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q1=v4999", "q2=w4999"), values(scan.row(row.cells())));
        assertEquals(List.of(tx(20_000)), tm.asked());
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(tx(20_000)).state(),
                "the TM could not say and the wait ran out: force-aborted");
        assertEquals(5, scan.offered());
    }

    @Test
    void pendingVersionsBelowTheNewestCommittedOneAreNeverResolved() throws IOException {
        SyntheticRow row = new SyntheticRow("r");
        for (int i = 0; i < 1_000; i++) {
            row.tentative(Q1, tx(2 * i), "crashed" + i); // writers that died before their commit point
        }
        row.committed(Q1, tx(5_000), tx(5_001), "committed");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q1=committed"), values(scan.row(row.cells())));
        assertEquals(List.of(), tm.asked());
        assertEquals(0, commitTable.lookups());
        assertEquals(0, row.commitCellReads());
        assertEquals(2, scan.offered());
    }

    @Test
    void aVersionCommittedWithoutItsCommitCellIsFoundInTheCommitTable() throws IOException {
        SyntheticRow row = hotRow(5_000).tentative(Q1, tx(20_000), "no commit cell yet");
        assertTrue(commitTable.tryCommit(tx(20_000), tx(20_001)));
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("q1=no commit cell yet", "q2=w4999"), values(scan.row(row.cells())));
        assertEquals(List.of(tx(20_000)), row.healed(), "the reader offers to write the missing commit cell");
        assertEquals(1, row.commitCellReads());
        assertEquals(List.of(), tm.asked());
    }

    @Test
    void qualifiersStartingWithZeroSortBeforeTheirCommitCellsAndAreResolved() throws IOException {
        byte[] zeroOnly = {0x00};              // a prefix of its commit qualifier 00 C2 80 00 C2 80
        byte[] zeroA = {0x00, 'a'};            // 00 61 sorts before 00 C2 80 00 61 C2 80
        byte[] zeroHigh = {0x00, (byte) 0xFF}; // sorts after its commit qualifier, like ordinary qualifiers
        SyntheticRow row = new SyntheticRow("r");
        for (int i = 0; i < 100; i++) {
            row.committed(zeroA, tx(2 * i), tx(2 * i + 1), "a" + i)
                    .committed(zeroOnly, tx(2 * i), tx(2 * i + 1), "o" + i)
                    .committed(zeroHigh, tx(2 * i), tx(2 * i + 1), "h" + i);
        }
        row.tentative(zeroA, tx(1_000), "pending");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("o99", "a99", "h99"), rawValues(scan.row(row.offHeapCells())));
        // 00 and 00 61 come before their commit cells: their newest versions are resolved through the region (00 61:
        // the pending one twice, before and after its force-abort, then the committed one); 00 FF is not.
        assertEquals(4, row.commitCellReads());
        assertEquals(List.of(tx(1_000)), tm.asked());
        assertEquals(7, scan.offered(), "00; 00 61 twice; the newest commit cell of each; 00 FF");
    }

    // ---- the user's filter --------------------------------------------------------------------------------------

    @Test
    void theUsersFilterSeesOnlyVisibleCells() throws IOException {
        SyntheticRow row = hotRow(1_000).tentative(Q1, tx(20_000), "pending");
        List<String> seen = new ArrayList<>();
        FilterBase recording = new FilterBase() {
            @Override
            public ReturnCode filterCell(Cell c) {
                seen.add(Bytes.toString(CellUtil.cloneQualifier(c)) + "=" + Bytes.toString(CellUtil.cloneValue(c)));
                return ReturnCode.INCLUDE;
            }
        };
        assertEquals(List.of("q1=v999", "q2=w999"),
                values(snapshotScan(Snapshot.begin(READER), recording, row).row(row.cells())));
        assertEquals(List.of("q1=v999", "q2=w999"), seen);
    }

    @Test
    void theUsersSeekHintIsPassedOn() throws IOException {
        SyntheticRow row = hotRow(1_000);
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), new ColumnPrefixFilter(Q2), row);
        assertEquals(List.of("q2=w999"), values(scan.row(row.cells())));
        assertEquals(1, scan.honouredHints(), "ColumnPrefixFilter's seek from q1 to q2");
    }

    @Test
    void aReversedScanTellsTheUsersFilterItRunsBackwards() throws IOException {
        SyntheticRow none = new SyntheticRow("none");
        ScanDriver scan = new ScanDriver(filter(Snapshot.begin(READER), new PrefixFilter(Bytes.toBytes("a")), none),
                true);
        List<String> returned = new ArrayList<>();
        for (String key : List.of("b1", "a2", "a1")) { // the order a reversed scan meets them
            if (!scan.row(new SyntheticRow(key).committed(Q1, tx(1), tx(2), "x").cells()).isEmpty()) {
                returned.add(key);
            }
        }
        assertEquals(List.of("a2", "a1"), returned);
    }

    @Test
    void aForwardScanWithTheSameFilterStopsAfterThePrefix() throws IOException {
        SyntheticRow none = new SyntheticRow("none");
        ScanDriver scan = new ScanDriver(filter(Snapshot.begin(READER), new PrefixFilter(Bytes.toBytes("a")), none),
                false);
        List<String> returned = new ArrayList<>();
        for (String key : List.of("a1", "a2", "b1")) {
            if (!scan.row(new SyntheticRow(key).committed(Q1, tx(1), tx(2), "x").cells()).isEmpty()) {
                returned.add(key);
            }
        }
        assertEquals(List.of("a1", "a2"), returned);
    }

    @Test
    void aCommitCellOfOneFamilySaysNothingAboutAnother() throws IOException {
        // Family a has a commit cell at tx(5000); family b's cell of that version has none and the commit table no
        // entry: b's must be resolved (and is force-aborted here), not taken from a's commit cell.
        SyntheticRow row = new SyntheticRow("r")
                .family("a").committed(Q1, tx(1), tx(2), "a-old").committed(Q1, tx(5_000), tx(5_001), "a-new")
                .family("b").committed(Q1, tx(1), tx(2), "b-old").tentative(Q1, tx(5_000), "b-torn");
        ScanDriver scan = snapshotScan(Snapshot.begin(READER), null, row);
        assertEquals(List.of("a-new", "b-old"), rawValues(scan.row(row.cells())));
        assertEquals(List.of(tx(5_000)), tm.asked());
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /**
     * {@code versions} committed versions of q1 (v0..) and q2 (w0..): writer tx(3i) committed at tx(3i+1); tx(3i+2)
     * is free for readers in between.
     */
    private static SyntheticRow hotRow(int versions) {
        SyntheticRow row = new SyntheticRow("hot");
        for (int i = 0; i < versions; i++) {
            row.committed(Q1, tx(3 * i), tx(3 * i + 1), "v" + i).committed(Q2, tx(3 * i), tx(3 * i + 1), "w" + i);
        }
        return row;
    }

    /** The filter the observer would install; {@code row} plays the region the resolver reads commit cells from. */
    private SnapshotReadFilter filter(Snapshot snapshot, Filter user, SyntheticRow row) {
        CommitResolver resolver = new CommitResolver(commitTable, 0, () -> tm.tm());
        return new SnapshotReadFilter(snapshot, resolver, row, user);
    }

    /** A forward scan of {@code row} with the snapshot's time range, as our client sends it. */
    private ScanDriver snapshotScan(Snapshot snapshot, Filter user, SyntheticRow row) {
        return new ScanDriver(filter(snapshot, user, row), snapshot.maxVersionExclusive(), false);
    }

    private static List<String> values(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Bytes.toString(CellUtil.cloneQualifier(c)) + "=" + Bytes.toString(CellUtil.cloneValue(c)));
        }
        return out;
    }

    private static List<String> rawValues(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Bytes.toString(CellUtil.cloneValue(c)));
        }
        return out;
    }

    /** Bytes this thread allocated while running {@code body}. */
    private static long allocatedBy(ThrowingRunnable body) throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        body.run();
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws IOException;
    }
}
