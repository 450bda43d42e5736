package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.snapshot.FamilyGc;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * What compaction-time GC knows of the writer of a version that has no commit cell in the compaction's input, for one
 * flush or compaction (its cache lives as long). In this order:
 * <ol>
 *   <li>version at or above the GC horizon: {@link FamilyGc.Status#PENDING}, looked up nowhere (FamilyGc keeps it
 *       whatever its writer did; an aborted one goes in a later compaction, and a live transaction's own writes are
 *       never touched);</li>
 *   <li>its writer already resolved in this compaction (by a commit cell of the input or a look-up below): that;</li>
 *   <li>the region's own commit cell (memstore, or a file outside the input): committed;</li>
 *   <li>the commit table: a commit value means committed; an invalid marker means aborted, unless the commit cell
 *       appeared meanwhile (a writer that committed and cleaned up before a stray marker landed);</li>
 *   <li>no entry: a fast-path version is not committed (its commit cell is written with it); a writer below the
 *       commit-point horizon can never write a commit point: aborted, unless its commit cell appeared meanwhile (it
 *       committed long ago and its post-commit wrote the cell before deleting the entry); otherwise force-abort it as
 *       a reader does (Omid LL): if the marker wins, look at the commit cell once more (a writer that committed and
 *       cleaned up meanwhile left one, and our marker is stray: it is deleted), else aborted; if it loses, the
 *       writer's commit value, or its commit cell, decides;</li>
 *   <li>any commit-table error: {@link FamilyGc.Status#UNKNOWN} (FamilyGc keeps that family whole), and so for every
 *       later look-up of this compaction: one unreachable commit table costs one time-out, not one per version.</li>
 * </ol>
 * Writers found invalidated (by a marker, or by our own force-abort) are reported ({@link Resolved#invalidated()}):
 * their markers may be deleted once their cells are gone and they are below the commit-point horizon
 * ({@link InvalidMarkerJanitor}).
 */
final class GcStatusResolver {
    private static final Logger LOG = LoggerFactory.getLogger(GcStatusResolver.class);

    /** A writer's status, its commit timestamp when committed, and whether an invalid marker says so. */
    record Resolved(FamilyGc.Status status, long commitTs, boolean invalidated) {
        static final Resolved PENDING = new Resolved(FamilyGc.Status.PENDING, -1, false);
        static final Resolved UNKNOWN = new Resolved(FamilyGc.Status.UNKNOWN, -1, false);
        static final Resolved ABORTED = new Resolved(FamilyGc.Status.ABORTED, -1, false);
        static final Resolved INVALIDATED = new Resolved(FamilyGc.Status.ABORTED, -1, true);

        static Resolved committed(long commitTs) {
            return new Resolved(FamilyGc.Status.COMMITTED, commitTs, false);
        }
    }

    private final Horizon horizon;
    private final CommitTable commitTable;
    private final CommitCellReader regionCells;
    private final String where;
    private final PreTransactionalCells preTransactional;
    /** Per writer (transaction id; fast-path versions are never cached: they share no writer). */
    private final Map<Long, Resolved> byWriter = new HashMap<>();
    private boolean commitTableFailed;
    private int lookups;

    /**
     * @param horizon     a known horizon
     * @param regionCells the region's commit cells (memstore and every file), read without coprocessors
     * @param where       the region and store, for logs
     */
    GcStatusResolver(Horizon horizon, CommitTable commitTable, CommitCellReader regionCells, String where) {
        this(horizon, commitTable, regionCells, where, PreTransactionalCells.NONE);
    }

    /** @param preTransactional the table's "committed below" rule */
    GcStatusResolver(Horizon horizon, CommitTable commitTable, CommitCellReader regionCells, String where,
                     PreTransactionalCells preTransactional) {
        if (!horizon.isKnown()) {
            throw new IllegalArgumentException("GC needs a known horizon");
        }
        this.horizon = horizon;
        this.commitTable = commitTable;
        this.regionCells = regionCells;
        this.where = where;
        this.preTransactional = preTransactional;
    }

    /** A commit cell of the input says its writer committed: later versions of that writer need no look-up. */
    void learnCommitted(long version, long commitTs) {
        if (!TimestampLayout.isFastPathVersion(version)) {
            byWriter.putIfAbsent(TimestampLayout.txIdOf(version), Resolved.committed(commitTs));
        }
    }

    Resolved resolve(byte[] row, byte[] family, byte[] qualifier, long version) {
        if (preTransactional.covers(version)) {
            return Resolved.committed(preTransactional.commitTimestampOf(version));
        }
        if (version >= horizon.gc()) {
            return Resolved.PENDING;
        }
        boolean fastPath = TimestampLayout.isFastPathVersion(version);
        long writer = TimestampLayout.txIdOf(version);
        if (!fastPath) {
            Resolved cached = byWriter.get(writer);
            if (cached != null) {
                return cached;
            }
        }
        Resolved resolved = lookUp(row, family, qualifier, version, writer, fastPath);
        if (!fastPath) {
            byWriter.put(writer, resolved);
        }
        return resolved;
    }

    /** Commit-table look-ups made (tests, logs). */
    int commitTableLookups() {
        return lookups;
    }

    boolean commitTableFailed() {
        return commitTableFailed;
    }

    private Resolved lookUp(byte[] row, byte[] family, byte[] qualifier, long version, long writer,
                            boolean fastPath) {
        try {
            long fromCell = commitCell(row, family, qualifier, version);
            if (fromCell != Visibility.NOT_COMMITTED) {
                return Resolved.committed(fromCell);
            }
            if (commitTableFailed) {
                return Resolved.UNKNOWN;
            }
            return fromCommitTable(row, family, qualifier, version, writer, fastPath);
        } catch (RegionReadFailed e) {
            LOG.debug("GC of {}: cannot read the commit cell of {} at {}; keeping its family", where,
                    Bytes.toStringBinary(row), version, e.getCause());
            return Resolved.UNKNOWN;
        } catch (IOException | RuntimeException e) {
            commitTableFailed = true;
            LOG.warn("GC of {}: the commit table cannot be read ({}); every family with a version it cannot resolve"
                    + " is kept whole by this flush or compaction", where, e.toString());
            return Resolved.UNKNOWN;
        }
    }

    private Resolved fromCommitTable(byte[] row, byte[] family, byte[] qualifier, long version, long writer,
                                     boolean fastPath) throws IOException {
        lookups++;
        CommitTable.Entry entry = commitTable.lookup(writer);
        switch (entry.state()) {
            case COMMITTED:
                return Resolved.committed(entry.commitTs());
            case INVALIDATED:
                return commitCellOr(row, family, qualifier, version, Resolved.INVALIDATED);
            default:
                break;
        }
        if (fastPath) {
            return Resolved.ABORTED;
        }
        if (writer < horizon.commitPointSafe()) {
            return commitCellOr(row, family, qualifier, version, Resolved.ABORTED);
        }
        if (commitTable.tryInvalidate(writer)) {
            long fromCell = commitCell(row, family, qualifier, version);
            if (fromCell != Visibility.NOT_COMMITTED) {
                commitTable.delete(writer); // committed and cleaned up before our marker: the marker is stray
                return Resolved.committed(fromCell);
            }
            LOG.debug("GC of {} force-aborted pending transaction {}", where, writer);
            return Resolved.INVALIDATED;
        }
        CommitTable.Entry after = commitTable.lookup(writer);
        if (after.state() == CommitTable.Entry.State.COMMITTED) {
            return Resolved.committed(after.commitTs());
        }
        // It committed, then cleaned up its entry between our two calls: its commit cell is there now.
        return commitCellOr(row, family, qualifier, version, Resolved.UNKNOWN);
    }

    private Resolved commitCellOr(byte[] row, byte[] family, byte[] qualifier, long version, Resolved otherwise) {
        long fromCell = commitCell(row, family, qualifier, version);
        return fromCell != Visibility.NOT_COMMITTED ? Resolved.committed(fromCell) : otherwise;
    }

    private long commitCell(byte[] row, byte[] family, byte[] qualifier, long version) {
        try {
            return regionCells.read(row, family, qualifier, version);
        } catch (IOException | RuntimeException e) {
            throw new RegionReadFailed(e);
        }
    }

    /** A failure to read the region itself: that version stays unknown, the commit table is not blamed. */
    private static final class RegionReadFailed extends RuntimeException {
        RegionReadFailed(Exception cause) {
            super(cause);
        }
    }
}
