package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.function.ToLongFunction;

/**
 * What the fast path needs to know of one row (VLDB'18 Alg. 4): per column, its newest committed version (data, a
 * tombstone, or for the empty qualifier a family-delete marker) and whether a version above it has a writer that may
 * still commit. From that: the row's version (the newest commit timestamp over its columns, deletes included; 0 when
 * nothing was committed), its latest committed values (family deletes mask what they committed after, as
 * {@link Visibility#isMaskedByFamilyDelete} rules), and its newest committed fast-path version.
 *
 * <p>Versions of a column are met newest first; the first committed one is the newest committed (for rows whose
 * writers are conflict-checked, version order is commit order: two writers of a row cannot both commit, and a
 * fast-path commit and a regular writer of a row exclude each other). A version above it without a commit cell in hand
 * is asked of the {@link Resolver}: committed (its post-commit has not run), aborted, or pending. Versions below the
 * newest committed one are not looked at: their writers can no longer commit, for the same reason.
 *
 * <p>A family's TTL ({@link #expiring}) hides values whose commit timestamp expired, as transactional readers and GC
 * rule ({@code FamilyTtl}): brc does not return them and brwc computes from them as absent. The row's version still
 * counts them (a wc bound is about commits, not values).
 *
 * <p>In a table made transactional after it was written, a version without a commit cell below the "committed below"
 * bound is committed at its version and is data whatever its value or qualifier ({@link PreTransactionalCells});
 * the resolver is never asked about it (its "writer" would lie below every horizon and read as dead).
 */
final class RowState {
    /** The resolver's answer for a version whose writer may still commit. */
    static final long PENDING = -2;

    /** Decides a version of the row that has no commit cell in hand. */
    @FunctionalInterface
    interface Resolver {
        /** Its commit timestamp, {@link Visibility#NOT_COMMITTED} (aborted) or {@link #PENDING}. */
        long commitTimestamp(byte[] family, byte[] qualifier, long version) throws IOException;
    }

    /** One column as the row's versions decide it. */
    static final class Column {
        final byte[] family;
        final byte[] qualifier;
        /** The newest committed cell, or null. */
        Cell committed;
        long commitTs = Visibility.NOT_COMMITTED;
        /** Writers of versions above the newest committed one that may still commit. */
        final List<Long> pending = new ArrayList<>(0);
        /** True when the versions in hand were a bounded prefix and none of them was committed. */
        boolean undecided;

        Column(byte[] family, byte[] qualifier) {
            this.family = family;
            this.qualifier = qualifier;
        }

        boolean isFamilyDelete() {
            return qualifier.length == 0;
        }

        @Override
        public String toString() {
            return Bytes.toStringBinary(family) + ":" + Bytes.toStringBinary(qualifier);
        }
    }

    /** No TTL: nothing expires. */
    static final ToLongFunction<byte[]> NO_TTL = family -> Long.MIN_VALUE;

    private final byte[] row;
    private final Map<ColumnKey, Column> columns;
    /** Per family: commit timestamps below this have expired. */
    private final ToLongFunction<byte[]> expiredBelow;
    /** The table's "committed below" rule (a table made transactional after it was written). */
    private final PreTransactionalCells preTransactional;

    private RowState(byte[] row, Map<ColumnKey, Column> columns, ToLongFunction<byte[]> expiredBelow,
                     PreTransactionalCells preTransactional) {
        this.row = row;
        this.columns = columns;
        this.expiredBelow = expiredBelow;
        this.preTransactional = preTransactional;
    }

    /** This state with the families' TTLs applied: {@code expiredBelow} gives a family's expiry bound. */
    RowState expiring(ToLongFunction<byte[]> expiredBelow) {
        return new RowState(row, columns, expiredBelow, preTransactional);
    }

    /**
     * Analyzes the cells of one row in HBase's order (commit cells and data, all families).
     *
     * @param prefixLimit a column with this many data versions in hand and no committed one among them is undecided
     *                    (its older versions were not read); 0: every version was read
     */
    static RowState analyze(byte[] row, List<Cell> cells, Resolver resolver, int prefixLimit) throws IOException {
        return analyze(row, cells, resolver, prefixLimit, PreTransactionalCells.NONE);
    }

    /**
     * @param preTransactional the table's "committed below" rule: a pre-switch version (no commit cell, below the
     *                         bound) is committed at its version, before the resolver is asked, and is data whatever
     *                         its value or qualifier
     */
    static RowState analyze(byte[] row, List<Cell> cells, Resolver resolver, int prefixLimit,
                            PreTransactionalCells preTransactional) throws IOException {
        Map<ColumnKey, Map<Long, Long>> commitCells = new HashMap<>();
        Map<ColumnKey, List<Cell>> data = new LinkedHashMap<>();
        Map<ColumnKey, Column> columns = new LinkedHashMap<>();
        // A writer's commit cells go into one put per row: one commit cell of it in the row says when it committed.
        Map<Long, Long> writers = new HashMap<>();
        byte[] family = null;
        for (Cell cell : cells) {
            if (family == null || !CellUtil.matchingFamily(cell, family)) {
                family = CellUtil.cloneFamily(cell); // cells come family by family: one copy per family
            }
            if (OnDiskLayout.isCommitCell(cell)) {
                long commitTs = OnDiskLayout.commitTimestampOf(cell);
                commitCells.computeIfAbsent(key(family, OnDiskLayout.dataQualifierOf(cell)), k -> new HashMap<>())
                        .putIfAbsent(cell.getTimestamp(), commitTs);
                if (!TimestampLayout.isFastPathVersion(cell.getTimestamp())) {
                    writers.putIfAbsent(TimestampLayout.txIdOf(cell.getTimestamp()), commitTs);
                }
            } else {
                byte[] qualifier = CellUtil.cloneQualifier(cell);
                byte[] ofFamily = family;
                ColumnKey key = key(ofFamily, qualifier);
                columns.computeIfAbsent(key, k -> new Column(ofFamily, qualifier));
                data.computeIfAbsent(key, k -> new ArrayList<>()).add(cell);
            }
        }
        for (Map.Entry<ColumnKey, Column> entry : columns.entrySet()) {
            decide(entry.getValue(), data.get(entry.getKey()), commitCells.getOrDefault(entry.getKey(), Map.of()),
                    writers, resolver, prefixLimit, preTransactional);
        }
        return new RowState(row, columns, NO_TTL, preTransactional);
    }

    /** This state with {@code column} decided again from all its versions (see {@link RowReader}). */
    RowState withColumn(Column column, List<Cell> cells, Resolver resolver) throws IOException {
        RowState whole = analyze(row, cells, resolver, 0, preTransactional);
        Map<ColumnKey, Column> merged = new LinkedHashMap<>(columns);
        ColumnKey key = key(column.family, column.qualifier);
        Column decided = whole.columns.get(key);
        if (decided == null) {
            merged.remove(key); // its versions are gone since (a concurrent cleanup)
        } else {
            merged.put(key, decided);
        }
        return new RowState(row, merged, expiredBelow, preTransactional);
    }

    private static void decide(Column column, List<Cell> versions, Map<Long, Long> commitCells,
                               Map<Long, Long> writers, Resolver resolver, int prefixLimit,
                               PreTransactionalCells preTransactional) throws IOException {
        for (Cell cell : versions) {
            long version = cell.getTimestamp();
            Long commitTs = commitCells.get(version);
            if (commitTs == null && preTransactional.covers(version)) {
                commitTs = version; // written before the table became transactional: no writer to look up
            }
            if (commitTs == null && !TimestampLayout.isFastPathVersion(version)) {
                commitTs = writers.get(TimestampLayout.txIdOf(version));
            }
            if (commitTs == null) {
                commitTs = resolver.commitTimestamp(column.family, column.qualifier, version);
            }
            if (commitTs >= 0) {
                column.committed = cell;
                column.commitTs = commitTs;
                return;
            }
            if (commitTs == PENDING) {
                column.pending.add(TimestampLayout.txIdOf(version));
            }
        }
        column.undecided = prefixLimit > 0 && versions.size() >= prefixLimit;
    }

    /** Columns whose newest committed version was not among the versions read. */
    List<Column> undecidedColumns() {
        List<Column> out = new ArrayList<>(0);
        for (Column c : columns.values()) {
            if (c.undecided) {
                out.add(c);
            }
        }
        return out;
    }

    /** Writers of the row that may still commit (a fast-path write must not go above them). */
    List<Long> pendingWriters() {
        List<Long> out = new ArrayList<>(0);
        for (Column c : columns.values()) {
            out.addAll(c.pending);
        }
        return out;
    }

    /** The row's version: the newest commit timestamp over its columns, deletes included; 0 if none. */
    long version() {
        long v = 0;
        for (Column c : columns.values()) {
            v = Math.max(v, c.commitTs);
        }
        return v;
    }

    /** The newest committed fast-path version of any column, or -1. */
    long newestFastPathCommit() {
        long v = -1;
        for (Column c : columns.values()) {
            if (c.committed != null && TimestampLayout.isFastPathVersion(c.committed.getTimestamp())) {
                v = Math.max(v, c.commitTs);
            }
        }
        return v;
    }

    /** The latest committed value of a column, or null (never written, deleted, or masked by a family delete). */
    byte[] committedValue(byte[] family, byte[] qualifier) {
        Cell cell = visible(columns.get(key(family, qualifier)));
        return cell == null ? null : CellUtil.cloneValue(cell);
    }

    /**
     * The latest committed cells a get asks for (families and qualifiers of {@code familyMap}; an empty map: all), in
     * HBase's order. Tombstones and family-delete markers are not values: they are left out.
     */
    List<Cell> visibleCells(Map<byte[], NavigableSet<byte[]>> familyMap) {
        List<Cell> out = new ArrayList<>();
        for (Column c : columns.values()) {
            Cell cell = visible(c);
            if (cell != null && asked(familyMap, c)) {
                out.add(cell);
            }
        }
        out.sort(org.apache.hadoop.hbase.CellComparator.getInstance());
        return out;
    }

    private static boolean asked(Map<byte[], NavigableSet<byte[]>> familyMap, Column c) {
        if (familyMap.isEmpty()) {
            return true;
        }
        for (Map.Entry<byte[], NavigableSet<byte[]>> f : familyMap.entrySet()) {
            if (Arrays.equals(f.getKey(), c.family)) {
                return f.getValue() == null || f.getValue().isEmpty() || f.getValue().contains(c.qualifier);
            }
        }
        return false;
    }

    private Cell visible(Column c) {
        if (c == null || c.committed == null || isDelete(c)
                || preTransactional.ttlTimeOf(c.committed.getTimestamp(), c.commitTs)
                < expiredBelow.applyAsLong(c.family)) {
            return null;
        }
        Column marker = columns.get(key(c.family, OnDiskLayout.FAMILY_DELETE_QUALIFIER));
        if (marker != null && marker.committed != null && isDelete(marker)) {
            long markerVersion = marker.committed.getTimestamp();
            long version = c.committed.getTimestamp();
            // Visibility.isMaskedByFamilyDelete for committed versions: commit order, then version within one commit
            if (c.commitTs < marker.commitTs || c.commitTs == marker.commitTs && version <= markerVersion) {
                return null;
            }
        }
        return c.committed;
    }

    /** A committed tombstone or family-delete marker; a pre-switch cell is data whatever its value or qualifier. */
    private boolean isDelete(Column c) {
        return !preTransactional.covers(c.committed.getTimestamp())
                && (c.isFamilyDelete() || OnDiskLayout.isTombstone(c.committed));
    }

    private static ColumnKey key(byte[] family, byte[] qualifier) {
        return new ColumnKey(family, qualifier);
    }

    /** A column by its bytes (a string form would cost an encoding per cell, and escaped forms can collide). */
    private record ColumnKey(byte[] family, byte[] qualifier) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ColumnKey k && Arrays.equals(family, k.family) && Arrays.equals(qualifier, k.qualifier);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(family) + Arrays.hashCode(qualifier);
        }

        @Override
        public String toString() {
            return Bytes.toStringBinary(family) + ":" + Bytes.toStringBinary(qualifier);
        }
    }

    @Override
    public String toString() {
        return "RowState{" + Bytes.toStringBinary(row) + ", version " + version() + ", columns " + columns.keySet()
                + (pendingWriters().isEmpty() ? "" : ", pending " + pendingWriters()) + "}";
    }
}
