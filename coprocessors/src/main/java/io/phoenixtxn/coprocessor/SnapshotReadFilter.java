package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.ColumnVersionSelector;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Server-side snapshot filter: lets through exactly the versions the snapshot sees, hides commit cells, tombstones
 * and family-delete markers, and applies the user's filter to visible cells only (so Phoenix's filters, aggregates
 * and joins on the region server never see another snapshot). Installed by {@link SnapshotReadObserver}; never
 * serialized.
 *
 * <p>Cells arrive per row, family, qualifier, newest version first. Commit cells ({@code 00 C2 80 ...}) sort
 * before ordinary qualifiers of their family and are remembered for the row; a version whose commit cell was not
 * seen (it sorts later, or is missing) is resolved by {@link CommitResolver}.
 */
final class SnapshotReadFilter extends FilterBase {
    private final Snapshot snapshot;
    private final CommitResolver resolver;
    private final CommitCellReader commitCells;
    private final Filter userFilter;
    private final ColumnVersionSelector selector;

    /** Commit timestamps from this row's commit cells, keyed by family, qualifier and version. */
    private final Map<ColumnVersion, Long> rowCommits = new HashMap<>();
    private Cell currentColumn;
    private Cell currentFamily;
    /** Version and commit timestamp of the newest visible family delete in the current family, or -1. */
    private long familyDeleteVersion = -1;
    private long familyDeleteCommitTs = -1;

    SnapshotReadFilter(Snapshot snapshot, CommitResolver resolver, CommitCellReader commitCells, Filter userFilter) {
        this.snapshot = snapshot;
        this.resolver = resolver;
        this.commitCells = commitCells;
        this.userFilter = userFilter;
        this.selector = new ColumnVersionSelector(snapshot);
    }

    @Override
    public ReturnCode filterCell(Cell cell) throws IOException {
        if (OnDiskLayout.isCommitCell(cell)) {
            rowCommits.put(new ColumnVersion(CellUtil.cloneFamily(cell), OnDiskLayout.dataQualifierOf(cell),
                    cell.getTimestamp()), OnDiskLayout.commitTimestampOf(cell));
            return ReturnCode.SKIP;
        }
        if (currentFamily == null || !CellUtil.matchingFamily(cell, currentFamily)) {
            currentFamily = cell;
            familyDeleteVersion = -1;
        }
        if (currentColumn == null || !CellUtil.matchingColumn(cell, currentColumn)) {
            currentColumn = cell;
            selector.reset();
        }
        long version = cell.getTimestamp();
        long commitTs = commitTimestampOf(cell, version);
        ColumnVersionSelector.Decision decision = selector.offer(version, commitTs);
        switch (decision) {
            case SKIP:
                return ReturnCode.SKIP;
            case NEXT_COLUMN:
                return ReturnCode.NEXT_COL;
            default:
                break;
        }
        boolean moreVersions = decision == ColumnVersionSelector.Decision.INCLUDE;
        if (OnDiskLayout.isFamilyDeleteMarker(cell)) {
            // Versions arrive newest first; for SNAPSHOT_ALL keep the newest visible delete.
            if (familyDeleteVersion < 0) {
                familyDeleteVersion = version;
                familyDeleteCommitTs = commitTs;
            }
            return moreVersions ? ReturnCode.SKIP : ReturnCode.NEXT_COL;
        }
        if (familyDeleteVersion >= 0 && Visibility.isMaskedByFamilyDelete(snapshot, familyDeleteVersion,
                familyDeleteCommitTs, version, commitTs)) {
            return ReturnCode.NEXT_COL;
        }
        if (OnDiskLayout.isTombstone(cell)) {
            return moreVersions ? ReturnCode.SKIP : ReturnCode.NEXT_COL;
        }
        if (userFilter == null) {
            return moreVersions ? ReturnCode.INCLUDE : ReturnCode.INCLUDE_AND_NEXT_COL;
        }
        ReturnCode user = userFilter.filterCell(cell);
        if (moreVersions) {
            return user;
        }
        switch (user) {
            case INCLUDE:
                return ReturnCode.INCLUDE_AND_NEXT_COL;
            case SKIP:
                return ReturnCode.NEXT_COL;
            default:
                return user;
        }
    }

    private long commitTimestampOf(Cell cell, long version) throws IOException {
        if (Visibility.isOwnWrite(snapshot, version) || version >= snapshot.txId()) {
            // Own writes need no commit; anything else at or above our start commits after it: never visible.
            return Visibility.NOT_COMMITTED;
        }
        Long cached = rowCommits.get(new ColumnVersion(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell),
                version));
        if (cached != null) {
            return cached;
        }
        long resolved = resolver.resolve(CellUtil.cloneRow(cell), CellUtil.cloneFamily(cell),
                CellUtil.cloneQualifier(cell), version, snapshot.txId(), commitCells);
        rowCommits.put(new ColumnVersion(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell), version),
                resolved);
        return resolved;
    }

    @Override
    public void reset() throws IOException {
        rowCommits.clear();
        currentColumn = null;
        currentFamily = null;
        familyDeleteVersion = -1;
        selector.reset();
        if (userFilter != null) {
            userFilter.reset();
        }
    }

    /**
     * HBase tells the scan's filter, which is this one, that the scan runs backwards; filters whose answers depend
     * on the direction (PrefixFilter, for one, stops past its prefix) must hear it too.
     */
    @Override
    public void setReversed(boolean reversed) {
        super.setReversed(reversed);
        if (userFilter != null) {
            userFilter.setReversed(reversed);
        }
    }

    @Override
    public boolean filterRowKey(Cell firstRowCell) throws IOException {
        return userFilter != null && userFilter.filterRowKey(firstRowCell);
    }

    @Override
    public boolean filterAllRemaining() throws IOException {
        return userFilter != null && userFilter.filterAllRemaining();
    }

    @Override
    public Cell transformCell(Cell v) throws IOException {
        return userFilter == null ? v : userFilter.transformCell(v);
    }

    @Override
    public void filterRowCells(List<Cell> kvs) throws IOException {
        if (userFilter != null) {
            userFilter.filterRowCells(kvs);
        }
    }

    @Override
    public boolean hasFilterRow() {
        return userFilter != null && userFilter.hasFilterRow();
    }

    @Override
    public boolean filterRow() throws IOException {
        return userFilter != null && userFilter.filterRow();
    }

    @Override
    public Cell getNextCellHint(Cell currentCell) throws IOException {
        return userFilter == null ? null : userFilter.getNextCellHint(currentCell);
    }

    @Override
    public boolean isFamilyEssential(byte[] name) throws IOException {
        return userFilter == null || userFilter.isFamilyEssential(name);
    }

    @Override
    public String toString() {
        return "SnapshotReadFilter{" + snapshot + (userFilter == null ? "" : ", user=" + userFilter) + "}";
    }

    /** Key of one version of one column within a row. */
    private static final class ColumnVersion {
        private final byte[] family;
        private final byte[] qualifier;
        private final long version;
        private final int hash;

        ColumnVersion(byte[] family, byte[] qualifier, long version) {
            this.family = family;
            this.qualifier = qualifier;
            this.version = version;
            this.hash = 31 * (31 * Bytes.hashCode(family) + Bytes.hashCode(qualifier)) + Long.hashCode(version);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof ColumnVersion)) {
                return false;
            }
            ColumnVersion other = (ColumnVersion) o;
            return version == other.version && Bytes.equals(family, other.family)
                    && Bytes.equals(qualifier, other.qualifier);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
