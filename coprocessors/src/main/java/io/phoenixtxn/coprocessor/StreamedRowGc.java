package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.FamilyGc;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * GC of a row too large to buffer ({@link RowGc} holds a row's cells in memory, up to
 * {@code phoenix.txn.gc.row.max.cells}): two passes over the row instead of one. The first reads the row from a second
 * scanner over the compaction's input ({@link CompactionInput}) and keeps a few primitives per cell (column, version,
 * flags, commit timestamp), resolves writers and decides with the same {@link FamilyGc} rules as {@link RowGc}; the
 * second is the compaction's own scanner, each cell looked up in the {@link Verdicts} as it streams by (per column a
 * binary search over its versions). A hot row whose history outgrew the
 * buffer is collected like any other instead of being written unchanged forever.
 *
 * <p>The verdicts are only as good as the first pass's view, so the second pass checks that both saw the same puts
 * (data and commit cells) of the row: a put the first pass did not see, or a data version it saw that never comes by,
 * fails the compaction ({@link Verdicts#verifyComplete}), whose input files then stay as they were (HBase discards the
 * unfinished output). Both scanners read the same files with the same scan type and keep every version; they may
 * differ only where HBase's own delete markers meet a changed read point, which our protocol does not produce for
 * committed versions. The caller stops streaming for the region after such a failure. A commit cell whose data
 * version is not in the row (an orphan) is kept here ({@link RowGc} drops those in a major compaction). When a
 * major compaction's verdicts would drop "no value" markers, cells outside the input are checked as {@link RowGc}
 * does, against a view of the model. In a table made transactional after it was written, the pre-switch cells follow
 * the "committed below" rule as in {@link RowGc} ({@link PreTransactionalCells}).
 */
final class StreamedRowGc {
    /** Reads one row of the compaction's input, in HBase's order, from a scanner of its own. */
    interface CompactionInput extends AutoCloseable {
        /**
         * Hands every cell of {@code row} in the input to {@code sink}, in order; returns false (having stopped) when
         * the row has more than {@code maxCells} cells.
         */
        boolean readRow(byte[] row, CellSink sink, long maxCells) throws IOException;

        @Override
        void close() throws IOException;
    }

    /** Receives the cells of a row; they are valid only during the call. */
    @FunctionalInterface
    interface CellSink {
        void accept(Cell cell) throws IOException;
    }

    private static final int TOMBSTONE = 1;
    private static final int FAMILY_DELETE = 2;

    private final long horizon;
    private final long expiredBelow;
    private final boolean major;
    private final PreTransactionalCells preTransactional;

    StreamedRowGc(long horizon, long expiredBelow, boolean major) {
        this(horizon, expiredBelow, major, PreTransactionalCells.NONE);
    }

    /**
     * @param preTransactional the table's "committed below" rule: a pre-switch cell is data whatever its value and
     *                         qualifier, and its TTL counts from its millisecond (as in {@link RowGc})
     */
    StreamedRowGc(long horizon, long expiredBelow, boolean major, PreTransactionalCells preTransactional) {
        this.horizon = horizon;
        this.expiredBelow = expiredBelow;
        this.major = major;
        this.preTransactional = preTransactional;
    }

    /**
     * First pass: reads {@code row} from {@code input} and decides it.
     *
     * @return the verdicts, or null when the row has more than {@code maxCells} cells (it is then written unchanged)
     */
    Verdicts decide(byte[] row, byte[] family, CompactionInput input, GcStatusResolver statuses,
                    RowGc.OutsideInput outside, long maxCells) throws IOException {
        Model model = new Model(statuses, preTransactional);
        if (!input.readRow(row, model::add, maxCells)) {
            return null;
        }
        if (model.malformed) {
            return Verdicts.keepAll(row);
        }
        for (Column column : model.columns) {
            if (!column.dataSorted()) {
                return null; // not HBase's order: nothing to reason about, the row is written unchanged
            }
            column.sortCommits();
        }
        FamilyGc gc = new FamilyGc(horizon, expiredBelow, major, preTransactional);
        FamilyGc minor = major ? new FamilyGc(horizon, expiredBelow, false, preTransactional) : null;
        List<Long> invalidatedCandidates = new ArrayList<>();
        for (int c = 0; c < model.columns.size(); c++) {
            Column column = model.columns.get(c);
            column.resolveAndAdd(c, row, family, statuses, gc, minor);
        }
        gc.decide();
        FamilyGc verdicts = gc;
        if (minor != null) {
            minor.decide();
            long below = Long.MIN_VALUE;
            for (Column column : model.columns) {
                for (int i = 0; i < column.data.size; i++) {
                    int x = column.gcIndex[i];
                    if (!gc.keep(x) && minor.keep(x)) {
                        below = Math.max(below, column.isFamilyDelete(i) ? column.commitTsOfData[i]
                                : column.data.get(i));
                    }
                }
            }
            if (below != Long.MIN_VALUE && outside.hasDataCellsBelow(row, family, below, model.asKeySet())) {
                verdicts = minor;
            }
        }
        for (Column column : model.columns) {
            column.applyVerdicts(verdicts, invalidatedCandidates);
        }
        return new Verdicts(row, model, invalidatedCandidates);
    }

    /**
     * One qualifier of the row: its data versions in HBase's (descending) order, and its commit cells, sorted the same
     * way before use (a column with commit cells of both qualifier forms, legacy and current, has two runs of them).
     */
    private static final class Column {
        final byte[] qualifier;
        final Longs data = new Longs();
        final Bytes1 dataFlags = new Bytes1(); // TOMBSTONE, FAMILY_DELETE
        final Longs commitVersions = new Longs();
        final Longs commitTimestamps = new Longs();
        int[] gcIndex;
        long[] commitTsOfData;
        boolean[] invalidated;
        boolean[] dataKeep;
        boolean[] commitKeep;
        boolean[] dataMatched;
        boolean[] commitMatched;
        int dataMatchedCount;
        int commitMatchedCount;

        Column(byte[] qualifier) {
            this.qualifier = qualifier;
        }

        boolean isFamilyDelete(int i) {
            return (dataFlags.get(i) & FAMILY_DELETE) != 0;
        }

        /** Sorts the commit cells by version, descending (stable for equal versions). */
        void sortCommits() {
            int n = commitVersions.size;
            boolean sorted = true;
            for (int i = 1; i < n && sorted; i++) {
                sorted = commitVersions.get(i - 1) >= commitVersions.get(i);
            }
            if (sorted) {
                return;
            }
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            java.util.Arrays.sort(order, (a, b) -> Long.compare(commitVersions.get(b), commitVersions.get(a)));
            long[] versions = new long[n];
            long[] timestamps = new long[n];
            for (int i = 0; i < n; i++) {
                versions[i] = commitVersions.get(order[i]);
                timestamps[i] = commitTimestamps.get(order[i]);
            }
            System.arraycopy(versions, 0, commitVersions.values, 0, n);
            System.arraycopy(timestamps, 0, commitTimestamps.values, 0, n);
        }

        /** True when the data versions are in descending order, as HBase hands one qualifier's cells out. */
        boolean dataSorted() {
            for (int i = 1; i < data.size; i++) {
                if (data.get(i - 1) < data.get(i)) {
                    return false;
                }
            }
            return true;
        }

        void resolveAndAdd(int id, byte[] row, byte[] family, GcStatusResolver statuses, FamilyGc gc,
                           FamilyGc minor) {
            int n = data.size;
            gcIndex = new int[n];
            commitTsOfData = new long[n];
            invalidated = new boolean[n];
            for (int i = 0; i < n; i++) {
                long version = data.get(i);
                int at = commitVersions.indexOfDescending(version);
                GcStatusResolver.Resolved r = at >= 0 ? GcStatusResolver.Resolved.committed(commitTimestamps.get(at))
                        : statuses.resolve(row, family, qualifier, version);
                boolean tombstone = (dataFlags.get(i) & TOMBSTONE) != 0;
                boolean familyDelete = isFamilyDelete(i);
                commitTsOfData[i] = r.commitTs();
                invalidated[i] = r.invalidated();
                gcIndex[i] = gc.add(id, version, r.status(), r.commitTs(), tombstone, familyDelete);
                if (minor != null) {
                    minor.add(id, version, r.status(), r.commitTs(), tombstone, familyDelete);
                }
            }
        }

        void applyVerdicts(FamilyGc verdicts, List<Long> droppedInvalidated) {
            int n = data.size;
            dataKeep = new boolean[n];
            dataMatched = new boolean[n];
            for (int i = 0; i < n; i++) {
                dataKeep[i] = verdicts.keep(gcIndex[i]);
                if (!dataKeep[i] && invalidated[i]) {
                    droppedInvalidated.add(TimestampLayout.txIdOf(data.get(i)));
                }
            }
            commitKeep = new boolean[commitVersions.size];
            commitMatched = new boolean[commitVersions.size];
            for (int j = 0; j < commitVersions.size; j++) {
                int at = data.indexOfDescending(commitVersions.get(j));
                commitKeep[j] = at < 0 || dataKeep[at]; // an orphan stays (see the class comment)
            }
            gcIndex = null;
            invalidated = null;
            commitTsOfData = null;
        }

        /**
         * The verdict on a data cell at {@code version}: 1 keep, 0 drop, -1 not seen by the first pass. Each cell of
         * the second pass takes one occurrence of its version (the first not yet taken; a surplus one takes the
         * last), so duplicate versions (an HBase client's retried put) match one to one.
         */
        int keepData(long version) {
            int at = take(data, dataMatched, version);
            if (at < 0) {
                return -1;
            }
            if (!dataMatched[at]) {
                dataMatched[at] = true;
                dataMatchedCount++;
            }
            return dataKeep[at] ? 1 : 0;
        }

        /** The same for a commit cell. */
        int keepCommit(long version) {
            int at = take(commitVersions, commitMatched, version);
            if (at < 0) {
                return -1;
            }
            if (!commitMatched[at]) {
                commitMatched[at] = true;
                commitMatchedCount++;
            }
            return commitKeep[at] ? 1 : 0;
        }

        private static int take(Longs versions, boolean[] matched, long version) {
            int at = versions.indexOfDescending(version);
            if (at < 0) {
                return -1;
            }
            while (at > 0 && versions.get(at - 1) == version) {
                at--; // the first occurrence
            }
            while (matched[at] && at + 1 < versions.size && versions.get(at + 1) == version) {
                at++;
            }
            return at;
        }
    }

    /** The first pass's view of the row. */
    private static final class Model {
        final GcStatusResolver statuses;
        final PreTransactionalCells preTransactional;
        final List<Column> columns = new ArrayList<>();
        final Map<RowGc.QualifierKey, Column> byQualifier = new HashMap<>();
        boolean malformed;
        private Column last;
        private boolean lastIsCommit;

        Model(GcStatusResolver statuses, PreTransactionalCells preTransactional) {
            this.statuses = statuses;
            this.preTransactional = preTransactional;
        }

        void add(Cell cell) {
            if (malformed || cell.getType() != Cell.Type.Put) {
                return; // HBase's own delete markers: kept, HBase handles them
            }
            if (OnDiskLayout.isCommitCell(cell)) {
                long commitTs;
                try {
                    commitTs = OnDiskLayout.commitTimestampOf(cell);
                } catch (IllegalStateException e) {
                    malformed = true;
                    return;
                }
                Column column = columnOf(cell, true);
                column.commitVersions.add(cell.getTimestamp());
                column.commitTimestamps.add(commitTs);
                statuses.learnCommitted(cell.getTimestamp(), commitTs);
            } else {
                Column column = columnOf(cell, false);
                column.data.add(cell.getTimestamp());
                // A pre-switch cell is plain data whatever its qualifier and value (no tombstones before the switch)
                column.dataFlags.add(preTransactional.covers(cell.getTimestamp()) ? 0
                        : (OnDiskLayout.isTombstone(cell) ? TOMBSTONE : 0)
                        | (OnDiskLayout.isFamilyDeleteMarker(cell) ? FAMILY_DELETE : 0));
            }
        }

        /** The column of a cell; cells of one qualifier are contiguous, so the last one is nearly always it. */
        private Column columnOf(Cell cell, boolean commit) {
            if (last != null && lastIsCommit == commit && matches(cell, commit, last.qualifier)) {
                return last;
            }
            byte[] qualifier = commit ? OnDiskLayout.dataQualifierOf(cell) : CellUtil.cloneQualifier(cell);
            Column column = byQualifier.computeIfAbsent(new RowGc.QualifierKey(qualifier), k -> {
                Column created = new Column(qualifier);
                columns.add(created);
                return created;
            });
            last = column;
            lastIsCommit = commit;
            return column;
        }

        private static boolean matches(Cell cell, boolean commit, byte[] dataQualifier) {
            if (!commit) {
                return CellUtil.matchingQualifier(cell, dataQualifier);
            }
            return Arrays.equals(OnDiskLayout.dataQualifierOf(cell.getQualifierArray(), cell.getQualifierOffset(),
                    cell.getQualifierLength()), dataQualifier);
        }

        Column find(Cell cell, boolean commit) {
            if (last != null && lastIsCommit == commit && matches(cell, commit, last.qualifier)) {
                return last;
            }
            byte[] qualifier = commit ? OnDiskLayout.dataQualifierOf(cell) : CellUtil.cloneQualifier(cell);
            Column column = byQualifier.get(new RowGc.QualifierKey(qualifier));
            if (column != null) {
                last = column;
                lastIsCommit = commit;
            }
            return column;
        }

        int dataCells() {
            int n = 0;
            for (Column column : columns) {
                n += column.data.size;
            }
            return n;
        }

        /** The data cells of the input as keys, for {@link RowGc.OutsideInput}; lookups by binary search. */
        java.util.Set<RowGc.CellKey> asKeySet() {
            return new AbstractSet<>() {
                @Override
                public boolean contains(Object o) {
                    if (!(o instanceof RowGc.CellKey key)) {
                        return false;
                    }
                    Column column = byQualifier.get(new RowGc.QualifierKey(key.qualifier()));
                    return column != null && column.data.indexOfDescending(key.version()) >= 0;
                }

                @Override
                public Iterator<RowGc.CellKey> iterator() {
                    return new Iterator<>() {
                        int c;
                        int i;

                        @Override
                        public boolean hasNext() {
                            while (c < columns.size() && i >= columns.get(c).data.size) {
                                c++;
                                i = 0;
                            }
                            return c < columns.size();
                        }

                        @Override
                        public RowGc.CellKey next() {
                            if (!hasNext()) {
                                throw new NoSuchElementException();
                            }
                            Column column = columns.get(c);
                            return new RowGc.CellKey(column.qualifier, column.data.get(i++));
                        }
                    };
                }

                @Override
                public int size() {
                    return dataCells();
                }
            };
        }
    }

    /** The second pass: the verdict on each cell of the row as the compaction's scanner hands it out. */
    static final class Verdicts {
        private final byte[] row;
        private final Model model;
        private final List<Long> droppedInvalidated;
        private long unseen;
        private String firstUnseen;

        private Verdicts(byte[] row, Model model, List<Long> droppedInvalidated) {
            this.row = row;
            this.model = model;
            this.droppedInvalidated = droppedInvalidated;
        }

        static Verdicts keepAll(byte[] row) {
            return new Verdicts(row, null, List.of());
        }

        /** Whether to write {@code cell}, a cell of this row; cells must come in the store's order. */
        boolean keep(Cell cell) {
            if (model == null || cell.getType() != Cell.Type.Put) {
                return true;
            }
            boolean commit = OnDiskLayout.isCommitCell(cell);
            Column column = model.find(cell, commit);
            int verdict = column == null ? -1
                    : commit ? column.keepCommit(cell.getTimestamp()) : column.keepData(cell.getTimestamp());
            if (verdict < 0) {
                if (unseen++ == 0) {
                    firstUnseen = cell.toString();
                }
                return true; // and verifyComplete fails the compaction
            }
            return verdict == 1;
        }

        /**
         * After the row's last cell: fails if a data version of the first pass never came by (the verdicts may rest
         * on it), so the compaction fails and leaves its input files as they were.
         */
        void verifyComplete(String where) throws IOException {
            if (model == null) {
                return;
            }
            if (unseen > 0) {
                throw new IOException("GC of " + where + ": the compaction's input read differently in GC's two"
                        + " passes over row " + Bytes.toStringBinary(row) + " (" + unseen + " cells the first pass"
                        + " did not see, the first " + firstUnseen + "); the compaction is failed so that no verdict"
                        + " rests on a different view: its files stay as they were, and a later compaction retries");
            }
            for (Column column : model.columns) {
                if (column.dataMatchedCount != column.data.size
                        || column.commitMatchedCount != column.commitVersions.size) {
                    throw new IOException("GC of " + where + ": the compaction's input read differently in GC's two"
                            + " passes over row " + Bytes.toStringBinary(row) + " (column "
                            + Bytes.toStringBinary(column.qualifier) + ": " + column.dataMatchedCount + " of "
                            + column.data.size + " data versions and " + column.commitMatchedCount + " of "
                            + column.commitVersions.size + " commit cells came by); the compaction is failed so that no verdict"
                            + " rests on a version it does not write: its files stay as they were, and a later"
                            + " compaction retries");
                }
            }
        }

        /** Writers whose versions these verdicts dropped as invalidated. */
        List<Long> droppedInvalidated() {
            return droppedInvalidated;
        }

        /** The data versions the first pass saw (for tests and logs). */
        int dataCells() {
            return model == null ? 0 : model.dataCells();
        }
    }

    /** A growable list of bytes. */
    private static final class Bytes1 {
        byte[] values = new byte[16];
        int size;

        void add(int v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = (byte) v;
        }

        int get(int i) {
            return values[i];
        }
    }

    /** A growable list of longs (no boxing). */
    private static final class Longs {
        long[] values = new long[16];
        int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long get(int i) {
            return values[i];
        }

        /** Index of {@code v} in a list sorted in descending order, or -1. */
        int indexOfDescending(long v) {
            int lo = 0;
            int hi = size - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                long m = values[mid];
                if (m == v) {
                    return mid;
                }
                if (m > v) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return -1;
        }
    }
}
