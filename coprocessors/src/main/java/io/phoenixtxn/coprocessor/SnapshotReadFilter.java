package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.ColumnVersionSelector;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;

import java.io.IOException;
import java.util.List;

/**
 * Server-side snapshot filter: lets through exactly the versions the snapshot sees, hides commit cells, tombstones
 * and family-delete markers, and applies the user's filter to visible cells only (so Phoenix's filters, aggregates
 * and joins on the region server never see another snapshot). Installed by {@link SnapshotReadObserver}; never
 * serialized.
 *
 * <p>Cost independent of a row's history: cells arrive per row, family, qualifier, newest version first, and commit
 * cells ({@code 00 C2 80 q C2 80}) sort before the data of their family for qualifiers that do not start with 0x00.
 * Of a column's commit cells the filter keeps ({@link CommitCellIndex}) only those it may need: versions below the
 * reader's start (it seeks past the others), down to the first one committed in the snapshot
 * ({@link ColumnVersionSelector#endsColumn}), where it moves to the next column. Its data is then decided newest
 * first by the {@link ColumnVersionSelector}, which stops at that same version at the latest. A version without a
 * kept commit cell (pending, committed without a commit cell yet, a column whose commit cells sort after its data
 * such as qualifiers starting with 0x00 and the family-delete marker, or older than the newest committed version
 * when that one's data is missing) is resolved by {@link CommitResolver}, as before: correct whatever the order.
 * Family-delete markers sort before their own commit cells but before any ordinary data of their family too: the
 * newest few wait for their commit cells ({@link PendingFamilyDeletes}) and are decided before the first data cell.
 * Seeks are hints only; where HBase does not honour them (reversed scans run forward within a row but honour only
 * backward hints) the cells in between arrive and get the same answers. In a table made transactional after it was
 * written, a version without a commit cell below the "committed below" bound is committed at its version
 * ({@link PreTransactionalCells}), decided before any look-up.
 */
final class SnapshotReadFilter extends FilterBase {
    private final Snapshot snapshot;
    private final CommitResolver resolver;
    private final CommitCellReader commitCells;
    private final Filter userFilter;
    private final ColumnVersionSelector selector;
    private final FamilyTtl.ForReader ttl;
    private final PreTransactionalCells preTransactional;

    /** Commit cells of the current family that the read may need. */
    private final CommitCellIndex familyCommits = new CommitCellIndex();
    /** Family-delete markers of the current family waiting for their commit cells. */
    private final PendingFamilyDeletes pendingDeletes = new PendingFamilyDeletes();
    private Cell currentColumn;
    private Cell currentFamily;
    /** Version and commit timestamp of the newest visible family delete in the current family, or -1. */
    private long familyDeleteVersion = -1;
    private long familyDeleteCommitTs = -1;
    /** Where our last SEEK_NEXT_USING_HINT goes, until HBase asks; null when the hint is the user filter's. */
    private Cell ownHint;

    SnapshotReadFilter(Snapshot snapshot, CommitResolver resolver, CommitCellReader commitCells, Filter userFilter) {
        this(snapshot, resolver, commitCells, userFilter, FamilyTtl.ForReader.NONE);
    }

    /** @param ttl the families' TTL as this snapshot sees it (expired committed values read as absent) */
    SnapshotReadFilter(Snapshot snapshot, CommitResolver resolver, CommitCellReader commitCells, Filter userFilter,
                       FamilyTtl.ForReader ttl) {
        this(snapshot, resolver, commitCells, userFilter, ttl, PreTransactionalCells.NONE);
    }

    /** @param preTransactional the table's "committed below" rule (a table made transactional after it was written) */
    SnapshotReadFilter(Snapshot snapshot, CommitResolver resolver, CommitCellReader commitCells, Filter userFilter,
                       FamilyTtl.ForReader ttl, PreTransactionalCells preTransactional) {
        this.ttl = ttl;
        this.preTransactional = preTransactional;
        this.snapshot = snapshot;
        this.resolver = resolver;
        this.commitCells = commitCells;
        this.userFilter = userFilter;
        this.selector = new ColumnVersionSelector(snapshot);
    }

    @Override
    public ReturnCode filterCell(Cell cell) throws IOException {
        ownHint = null;
        if (currentFamily == null || !CellUtil.matchingFamily(cell, currentFamily)) {
            currentFamily = cell;
            currentColumn = null;
            familyDeleteVersion = -1;
            familyCommits.clear();
            pendingDeletes.clear();
        }
        long version = cell.getTimestamp();
        if (version >= snapshot.maxVersionExclusive()) {
            // Written after the snapshot's last write pointer: neither visible nor needed (reads without the
            // snapshot's time range meet these).
            return seekBelow(cell, snapshot.maxVersionExclusive());
        }
        if (OnDiskLayout.isCommitCell(cell)) {
            return filterCommitCell(cell, version);
        }
        if (currentColumn == null || !CellUtil.matchingColumn(cell, currentColumn)) {
            settleFamilyDelete(); // markers still waiting: decide them before any data they may mask
            currentColumn = cell;
            selector.reset();
        }
        if (mayWaitForCommitCell(cell, version)) {
            pendingDeletes.add(cell, version);
            return ReturnCode.SKIP;
        }
        if (settleFamilyDelete()) {
            // A newer marker of this column is the family delete: the column's walk ends there.
            selector.offer(familyDeleteVersion, familyDeleteCommitTs);
            return ReturnCode.NEXT_COL;
        }
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
        if (OnDiskLayout.isFamilyDeleteMarker(cell) && !preTransactional.covers(version)) {
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
        // A pre-switch cell is plain data, even with an empty value (non-transactional deletes are HBase markers).
        if ((OnDiskLayout.isTombstone(cell) && !preTransactional.covers(version)) || expired(cell, version, commitTs)) {
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

    /**
     * Can this family-delete marker wait for its commit cell, which sorts after it? Only while the family delete is
     * undecided and the marker column's walk goes on, for markers of other writers below our start, and a few.
     */
    private boolean mayWaitForCommitCell(Cell cell, long version) {
        return familyDeleteVersion < 0 && !selector.isDone() && !pendingDeletes.isFull()
                && OnDiskLayout.isFamilyDeleteMarker(cell) && Visibility.needsCommitTimestamp(snapshot, version)
                && !preTransactional.covers(version);
    }

    /**
     * Decides the waiting markers, newest first, from their commit cells if the read has met them since, else
     * through the resolver: the first one in the snapshot is the family delete. Called when the marker column ends,
     * or within it when a marker cannot wait any longer.
     *
     * @return true when one of them is the family delete
     */
    private boolean settleFamilyDelete() throws IOException {
        if (pendingDeletes.isEmpty()) {
            return false;
        }
        try {
            for (int i = 0; i < pendingDeletes.size(); i++) {
                long version = pendingDeletes.version(i);
                long commitTs = familyCommits.commitTimestampOf(OnDiskLayout.FAMILY_DELETE_QUALIFIER, version);
                if (commitTs == CommitCellIndex.UNKNOWN) {
                    commitTs = resolve(pendingDeletes.marker(), version);
                }
                if (Visibility.isVisible(snapshot, version, commitTs)) {
                    familyDeleteVersion = version;
                    familyDeleteCommitTs = commitTs;
                    return true;
                }
            }
            return false;
        } finally {
            pendingDeletes.clear();
        }
    }

    /**
     * A commit cell: kept if its version is below our start, until the first one committed in the snapshot, which
     * ends the column (its data version is the oldest the selector can reach).
     */
    private ReturnCode filterCommitCell(Cell cell, long version) {
        if (!Visibility.needsCommitTimestamp(snapshot, version)) {
            // At or above our start: invisible whatever it committed. Seek to the versions below our start.
            return seekBelow(cell, snapshot.txId());
        }
        long commitTs = OnDiskLayout.commitTimestampOf(cell);
        familyCommits.record(cell, commitTs);
        return selector.endsColumn(version, commitTs) ? ReturnCode.NEXT_COL : ReturnCode.SKIP;
    }

    /**
     * Skips to the versions of this cell's column below {@code version}. A reversed scan honours only hints that go
     * backwards (StoreScanner, HBase 2.6), so there the cells in between are skipped one by one instead, without
     * building a hint for each.
     */
    private ReturnCode seekBelow(Cell cell, long version) {
        if (isReversed()) {
            return ReturnCode.SKIP;
        }
        ownHint = PrivateCellUtil.createFirstOnRowColTS(cell, version - 1);
        return ReturnCode.SEEK_NEXT_USING_HINT;
    }

    private long commitTimestampOf(Cell cell, long version) throws IOException {
        if (!Visibility.needsCommitTimestamp(snapshot, version)) {
            return Visibility.NOT_COMMITTED;
        }
        long kept = familyCommits.commitTimestampOf(cell, version);
        if (kept != CommitCellIndex.UNKNOWN) {
            return kept;
        }
        return resolve(cell, version);
    }

    /** The commit timestamp of {@code version} of the cell's column, from the region, the commit table or the TM. */
    private long resolve(Cell cell, long version) throws IOException {
        long preSwitch = preTransactional.commitTimestampOf(version);
        if (preSwitch != Visibility.NOT_COMMITTED) {
            return preSwitch; // written before the table became transactional: committed, nothing to look up
        }
        return resolver.resolve(CellUtil.cloneRow(cell), CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell),
                version, snapshot.txId(), commitCells);
    }

    /** A committed value older than the family's TTL at this snapshot's start reads as no value (FamilyTtl). */
    private boolean expired(Cell cell, long version, long commitTs) {
        return !Visibility.isOwnWrite(snapshot, version)
                && preTransactional.ttlTimeOf(version, commitTs) < ttl.expiredBelow(cell);
    }

    @Override
    public void reset() throws IOException {
        familyCommits.clear();
        pendingDeletes.clear();
        ownHint = null;
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
        if (ownHint != null) {
            Cell hint = ownHint;
            ownHint = null;
            return hint;
        }
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
}
