package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Decides, for the fast path, a version of one row that has no commit cell in hand ({@link RowState.Resolver}), by
 * the rules the regular read path applies ({@code CommitResolver}, {@code GcStatusResolver}) without asking the TM
 * and without waiting (it runs under the row lock):
 * <ol>
 *   <li>the commit table: a commit value decides; an invalid marker means aborted, unless the version's commit cell
 *       exists (a stray marker over a writer that committed and cleaned up);</li>
 *   <li>no entry: the commit cell, read after the look-up (a writer deletes its entry only once its commit cells are
 *       durable, so a commit the first look missed is found here);</li>
 *   <li>no entry, no commit cell, and the writer below the commit-point horizon ({@link Horizon#commitPointSafe()}):
 *       aborted; it can never write a commit point;</li>
 *   <li>no entry, no commit cell, the writer below the GC horizon ({@link Horizon#gc()}: it is no longer live, but its
 *       commit point may still be under way), and the caller is a fast-path write ({@link Mode#FORCE_ABORT_DEAD}):
 *       force-aborted through the commit table as GC and readers do. If the invalid marker lands, the commit cell is
 *       read once more (a writer that committed and cleaned up before the marker left one: the marker is stray and
 *       deleted), else aborted; if it loses, the writer committed, and its commit value (or, once cleaned up, its
 *       commit cell) decides;</li>
 *   <li>otherwise pending: the writer may still commit.</li>
 * </ol>
 * Invariant: a version is reported aborted only when its writer can no longer commit (rule 3) or the commit table
 * holds its invalid marker; never on an assumption. Answers are kept per writer for the one row.
 */
final class TentativeVersionResolver implements RowState.Resolver {
    private static final Logger LOG = LoggerFactory.getLogger(TentativeVersionResolver.class);

    /** What a caller may do about a writer that is no longer live but has no outcome yet. */
    enum Mode {
        /** Reads: report it pending (a read ignores pending versions anyway; no commit-table write). */
        REPORT_PENDING,
        /** Fast-path writes: force-abort it, so that a dead writer does not block the row's fast-path writes. */
        FORCE_ABORT_DEAD
    }

    private final byte[] row;
    private final CommitTable commitTable;
    private final CommitCellReader commitCells;
    private final Supplier<Horizon> horizon;
    private final Mode mode;
    private final Map<Long, Long> byWriter = new HashMap<>(4);

    TentativeVersionResolver(byte[] row, CommitTable commitTable, CommitCellReader commitCells,
                             Supplier<Horizon> horizon, Mode mode) {
        this.row = row;
        this.commitTable = commitTable;
        this.commitCells = commitCells;
        this.horizon = horizon;
        this.mode = mode;
    }

    @Override
    public long commitTimestamp(byte[] family, byte[] qualifier, long version) throws IOException {
        long writer = TimestampLayout.txIdOf(version);
        Long known = byWriter.get(writer);
        if (known != null) {
            return known; // one outcome for all its cells (one commit cell of a writer decides its row: RowState)
        }
        long decided = decide(family, qualifier, version, writer);
        byWriter.put(writer, decided);
        return decided;
    }

    private long decide(byte[] family, byte[] qualifier, long version, long writer) throws IOException {
        CommitTable.Entry entry = commitTable.lookup(writer);
        switch (entry.state()) {
            case COMMITTED:
                return entry.commitTs();
            case INVALIDATED:
                return orCommitCell(family, qualifier, version, Visibility.NOT_COMMITTED);
            default:
                break;
        }
        long fromCell = commitCells.read(row, family, qualifier, version);
        if (fromCell != Visibility.NOT_COMMITTED) {
            return fromCell;
        }
        Horizon h = horizon.get();
        if (writer < h.commitPointSafe()) {
            return Visibility.NOT_COMMITTED;
        }
        if (mode == Mode.FORCE_ABORT_DEAD && writer < h.gc()) {
            return forceAbort(family, qualifier, version, writer);
        }
        return RowState.PENDING;
    }

    private long forceAbort(byte[] family, byte[] qualifier, long version, long writer) throws IOException {
        if (commitTable.tryInvalidate(writer)) {
            long fromCell = commitCells.read(row, family, qualifier, version);
            if (fromCell != Visibility.NOT_COMMITTED) {
                commitTable.delete(writer); // it committed and cleaned up before our marker: the marker is stray
                return fromCell;
            }
            LOG.debug("A fast-path write force-aborted transaction {}, below the GC horizon without a commit point",
                    writer);
            return Visibility.NOT_COMMITTED;
        }
        CommitTable.Entry after = commitTable.lookup(writer);
        if (after.state() == CommitTable.Entry.State.COMMITTED) {
            return after.commitTs();
        }
        // It committed, then cleaned its entry up between our two calls: its commit cell is there now. Without one
        // the outcome is not known here: pending, never assumed aborted.
        long fromCell = commitCells.read(row, family, qualifier, version);
        return fromCell != Visibility.NOT_COMMITTED ? fromCell : RowState.PENDING;
    }

    private long orCommitCell(byte[] family, byte[] qualifier, long version, long otherwise) throws IOException {
        long fromCell = commitCells.read(row, family, qualifier, version);
        return fromCell != Visibility.NOT_COMMITTED ? fromCell : otherwise;
    }
}
