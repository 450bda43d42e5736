package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.FamilyGc;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Garbage collection of one row of one store (one family): maps its commit cells to their data versions, resolves
 * every other data version's writer ({@link GcStatusResolver}), lets {@link FamilyGc} decide, and says which cells to
 * keep. A commit cell is kept iff its data version is; one whose data version is not in the input (an orphan) is
 * dropped by a compaction of every file of the store and kept by others (the version may be in a file they do not
 * see). HBase's own delete markers (any cell type but Put) are kept: HBase handles them. A malformed commit cell
 * keeps the whole row.
 *
 * <p>A compaction of every file still does not see the memstore, nor files flushed after it chose its input. What
 * only such a compaction drops (a tombstone, an expired version or a family delete below the horizon: "no value"
 * markers) must keep masking any older version outside the input; when the caller cannot rule those out
 * ({@link OutsideInput}), the row gets the verdicts of a partial compaction instead. Versions outside the input that
 * are written later have writers that were live at the horizon, so they are never below it and never masked by a
 * marker there: only what is already in the region matters, and the caller asks after reading the horizon.
 */
final class RowGc {
    /** Looks for data cells of the row that the compaction's input does not hold. */
    @FunctionalInterface
    interface OutsideInput {
        OutsideInput NONE = (row, family, below, input) -> false;

        /**
         * @param below  only versions below this matter
         * @param input  the data cells (qualifier, version) of the input's row
         * @return true if the region holds a data cell of the row and family below {@code below} that is not in
         *         {@code input}, or cannot tell
         */
        boolean hasDataCellsBelow(byte[] row, byte[] family, long below, Set<CellKey> input) throws IOException;
    }

    /** A column version of the row: data qualifier and version. */
    record CellKey(byte[] qualifier, long version) {
        @Override
        public boolean equals(Object o) {
            return o instanceof CellKey k && k.version == version && Arrays.equals(k.qualifier, qualifier);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(qualifier) + Long.hashCode(version);
        }

        @Override
        public String toString() {
            return Bytes.toStringBinary(qualifier) + "@" + version;
        }
    }

    private final long horizon;
    private final long expiredBelow;
    private final boolean major;
    private final FamilyGc gc;
    private final FamilyGc minor;
    private final PreTransactionalCells preTransactional;
    private final List<Long> droppedInvalidated = new ArrayList<>();

    /**
     * @param horizon      the horizon FamilyGc reasons about ({@link Long#MIN_VALUE}: drop only aborted versions)
     * @param expiredBelow commit timestamps below it have outlived the family's TTL ({@link Long#MIN_VALUE}: none)
     * @param major        the input is every file of the store
     */
    RowGc(long horizon, long expiredBelow, boolean major) {
        this(horizon, expiredBelow, major, PreTransactionalCells.NONE);
    }

    /** @param preTransactional the table's "committed below" rule (TTLs of pre-switch cells) */
    RowGc(long horizon, long expiredBelow, boolean major, PreTransactionalCells preTransactional) {
        this.horizon = horizon;
        this.expiredBelow = expiredBelow;
        this.major = major;
        this.gc = new FamilyGc(horizon, expiredBelow, major, preTransactional);
        this.minor = major ? new FamilyGc(horizon, expiredBelow, false, preTransactional) : null;
        this.preTransactional = preTransactional;
    }

    /**
     * Decides one row of one store.
     *
     * @param cells    every cell of the row in the store's input, in order
     * @param statuses resolves versions without a commit cell in {@code cells}
     * @return per cell, whether to keep it
     */
    boolean[] decide(List<Cell> cells, GcStatusResolver statuses, OutsideInput outside) throws IOException {
        int n = cells.size();
        boolean[] keep = new boolean[n];
        Arrays.fill(keep, true);
        if (n == 0) {
            return keep;
        }
        Map<CellKey, Long> commits = new HashMap<>();
        for (Cell cell : cells) {
            if (cell.getType() == Cell.Type.Put && OnDiskLayout.isCommitCell(cell)) {
                long commitTs;
                try {
                    commitTs = OnDiskLayout.commitTimestampOf(cell);
                } catch (IllegalStateException malformed) {
                    return keep;
                }
                commits.put(new CellKey(OnDiskLayout.dataQualifierOf(cell), cell.getTimestamp()), commitTs);
                statuses.learnCommitted(cell.getTimestamp(), commitTs);
            }
        }
        byte[] row = CellUtil.cloneRow(cells.get(0));
        byte[] family = CellUtil.cloneFamily(cells.get(0));
        gc.reset();
        if (minor != null) {
            minor.reset();
        }
        int[] index = new int[n];
        GcStatusResolver.Resolved[] resolved = new GcStatusResolver.Resolved[n];
        Map<CellKey, Integer> dataAt = new HashMap<>();
        Map<QualifierKey, Integer> columns = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Cell cell = cells.get(i);
            index[i] = -1;
            if (cell.getType() != Cell.Type.Put || OnDiskLayout.isCommitCell(cell)) {
                continue;
            }
            byte[] qualifier = CellUtil.cloneQualifier(cell);
            long version = cell.getTimestamp();
            CellKey key = new CellKey(qualifier, version);
            Long commitTs = commits.get(key);
            GcStatusResolver.Resolved r = commitTs != null ? GcStatusResolver.Resolved.committed(commitTs)
                    : statuses.resolve(row, family, qualifier, version);
            // A pre-switch cell is plain data whatever its qualifier and value (no tombstones before the switch).
            boolean preSwitch = preTransactional.covers(version);
            boolean familyDelete = !preSwitch && OnDiskLayout.isFamilyDeleteMarker(cell);
            int column = familyDelete ? 0 : columns.computeIfAbsent(new QualifierKey(qualifier),
                    q -> columns.size());
            boolean tombstone = !preSwitch && OnDiskLayout.isTombstone(cell);
            index[i] = gc.add(column, version, r.status(), r.commitTs(), tombstone, familyDelete);
            if (minor != null) {
                minor.add(column, version, r.status(), r.commitTs(), tombstone, familyDelete);
            }
            resolved[i] = r;
            dataAt.put(key, i);
        }
        gc.decide();
        FamilyGc verdicts = gc;
        if (minor != null) {
            minor.decide();
            long below = Long.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                int x = index[i];
                if (x >= 0 && !gc.keep(x) && minor.keep(x)) {
                    Cell cell = cells.get(i);
                    // A family delete masks what committed before it; a column's "no value" masks lower versions.
                    below = Math.max(below, OnDiskLayout.isFamilyDeleteMarker(cell) ? resolved[i].commitTs()
                            : cell.getTimestamp());
                }
            }
            if (below != Long.MIN_VALUE && outside.hasDataCellsBelow(row, family, below, dataAt.keySet())) {
                verdicts = minor;
            }
        }
        droppedInvalidated.clear();
        for (int i = 0; i < n; i++) {
            if (index[i] >= 0) {
                keep[i] = verdicts.keep(index[i]);
                if (!keep[i] && resolved[i].invalidated()) {
                    droppedInvalidated.add(TimestampLayout.txIdOf(cells.get(i).getTimestamp()));
                }
            }
        }
        for (int i = 0; i < n; i++) {
            Cell cell = cells.get(i);
            if (cell.getType() == Cell.Type.Put && OnDiskLayout.isCommitCell(cell)) {
                Integer data = dataAt.get(new CellKey(OnDiskLayout.dataQualifierOf(cell), cell.getTimestamp()));
                keep[i] = data != null ? keep[data] : !major;
            }
        }
        return keep;
    }

    /** Writers whose versions the last {@link #decide} dropped as invalidated (their markers may go). */
    List<Long> droppedInvalidated() {
        return droppedInvalidated;
    }

    @Override
    public String toString() {
        return "RowGc{horizon=" + horizon + ", expiredBelow=" + expiredBelow + ", major=" + major + "}";
    }

    /** A qualifier as a map key. */
    record QualifierKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof QualifierKey k && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}
