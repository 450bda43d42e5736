package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link SnapshotReadFilter} driven the way a region scanner drives a filter, over synthetic cells: committed
 * versions carry commit cells, pending ones are settled by a {@link CommitResolver} over an in-memory commit table.
 */
class SnapshotReadFilterTest {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final long WRITER = TimestampLayout.firstSlotOfMillis(1_000);
    private static final long COMMIT = TimestampLayout.firstSlotOfMillis(1_001);
    private static final long PENDING_WRITER = TimestampLayout.firstSlotOfMillis(1_500);
    private static final long READER = TimestampLayout.firstSlotOfMillis(2_000);

    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();
    private final CommitResolver resolver = new CommitResolver(commitTable, 0, () -> null);
    private final CommitCellReader noCommitCells = (row, family, qualifier, version) -> Visibility.NOT_COMMITTED;

    @Test
    void aReversedScanTellsTheUsersFilterItRunsBackwards() throws IOException {
        Map<String, List<Cell>> rows = new LinkedHashMap<>();
        for (String row : List.of("b1", "a2", "a1")) { // the order a reversed scan meets them
            rows.put(row, committed(row, "x-" + row));
        }
        SnapshotReadFilter filter = filter(new PrefixFilter(Bytes.toBytes("a")));
        filter.setReversed(true);
        assertEquals(List.of("a2", "a1"), scan(filter, rows));
    }

    @Test
    void aForwardScanWithTheSameFilterStopsAfterThePrefix() throws IOException {
        Map<String, List<Cell>> rows = new LinkedHashMap<>();
        for (String row : List.of("a1", "a2", "b1")) {
            rows.put(row, committed(row, "x-" + row));
        }
        assertEquals(List.of("a1", "a2"), scan(filter(new PrefixFilter(Bytes.toBytes("a"))), rows));
    }

    @Test
    void aPendingVersionIsSkippedAndTheCommittedOneBelowItIsRead() throws IOException {
        List<Cell> cells = new ArrayList<>(committed("r", "v0"));
        cells.add(new KeyValue(Bytes.toBytes("r"), F, Q, PENDING_WRITER, Bytes.toBytes("v1")));
        cells.sort(CellComparator.getInstance());
        SnapshotReadFilter filter = filter(null);
        List<Cell> visible = new ArrayList<>();
        filter.reset();
        for (Cell cell : cells) {
            Filter.ReturnCode code = filter.filterCell(cell);
            if (code == Filter.ReturnCode.INCLUDE || code == Filter.ReturnCode.INCLUDE_AND_NEXT_COL) {
                visible.add(cell);
            }
        }
        assertEquals(1, visible.size(), "only one version is visible: " + visible);
        assertEquals("v0", Bytes.toString(visible.get(0).getValueArray(), visible.get(0).getValueOffset(),
                visible.get(0).getValueLength()));
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(PENDING_WRITER).state(),
                "no TM to ask and no commit after the wait: the pending writer was force-aborted");
    }

    private SnapshotReadFilter filter(Filter user) {
        return new SnapshotReadFilter(Snapshot.begin(READER), resolver, noCommitCells, user);
    }

    /** A committed value: its data cell and its commit cell, in HBase's order. */
    private static List<Cell> committed(String row, String value) {
        List<Cell> cells = new ArrayList<>();
        cells.add(new KeyValue(Bytes.toBytes(row), F, OnDiskLayout.commitQualifier(Q), WRITER,
                OnDiskLayout.encodeCommitTimestamp(COMMIT)));
        cells.add(new KeyValue(Bytes.toBytes(row), F, Q, WRITER, Bytes.toBytes(value)));
        cells.sort(CellComparator.getInstance());
        return cells;
    }

    /**
     * What a region scanner does with a filter, reduced to what these tests need: rows in scan order, each row
     * offered by key, then cell by cell; a row with an included cell is returned.
     */
    private static List<String> scan(Filter filter, Map<String, List<Cell>> rows) throws IOException {
        List<String> returned = new ArrayList<>();
        for (Map.Entry<String, List<Cell>> row : rows.entrySet()) {
            if (filter.filterAllRemaining()) {
                break;
            }
            filter.reset();
            if (filter.filterRowKey(row.getValue().get(0))) {
                continue;
            }
            boolean included = false;
            for (Cell cell : row.getValue()) {
                Filter.ReturnCode code = filter.filterCell(cell);
                included |= code == Filter.ReturnCode.INCLUDE || code == Filter.ReturnCode.INCLUDE_AND_NEXT_COL;
            }
            if (included && !filter.filterRow()) {
                returned.add(row.getKey());
            }
        }
        return returned;
    }

    /** The commit table's contract in memory: commit unless invalidated, invalidate unless committed. */
    private static final class InMemoryCommitTable implements CommitTable {
        private final Map<Long, Entry> entries = new HashMap<>();

        @Override
        public synchronized boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) {
            return entries.putIfAbsent(txId, Entry.committed(commitTs)) == null
                    || entries.get(txId).state() == Entry.State.COMMITTED;
        }

        @Override
        public byte[] recoveryRecord(long txId) {
            return null;
        }

        @Override
        public synchronized Entry lookup(long txId) {
            return entries.getOrDefault(txId, Entry.ABSENT);
        }

        @Override
        public synchronized boolean tryInvalidate(long txId) {
            return entries.computeIfAbsent(txId, id -> Entry.INVALIDATED).state() == Entry.State.INVALIDATED;
        }

        @Override
        public synchronized void delete(long txId) {
            entries.remove(txId);
        }

        @Override
        public java.util.stream.Stream<CommittedEntry> committedBefore(long txIdBelow) {
            return java.util.stream.Stream.empty(); // the read path never scans the commit table
        }
    }
}
