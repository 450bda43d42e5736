package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.fastpath.FastPathWriteConflictException;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The region server's side of the regular path in a fast-path world (VLDB'18 Alg. 4 prePut and preUpdate), run in
 * preBatchMutate with the rows locked:
 *
 * <ul>
 *   <li>A put of commit cells (a post-commit, a reader's heal, the cleaner, a committed-on-write index row) bumps the
 *       clock to its commit timestamp: a later fast-path write of the row goes above it.</li>
 *   <li>A tentative write of a transaction that started at S (or whose replay checks conflicts since S:
 *       {@link SnapshotAttributes#CONFLICTS_SINCE}) is refused when its row holds a fast-path commit above S: that
 *       commit is invisible to the TM's conflict table, and the transaction's reads of the row, if any, did not see it
 *       (Figure 3). The batch fails with {@link FastPathWriteConflictException} (thrown: a failure status would be
 *       dropped for a single put or an atomic batch, see HRegion.mutate and RSRpcServices.doBatchOp).</li>
 * </ul>
 * A tentative write is recognised by its cells, never by its attributes: any data cell of a put without its commit
 * cell (same column, same version) in that put is tentative, and its writer is {@code txIdOf(version)} (S is the
 * lowest over the put's tentative cells). Attributes are optional: older phoenix-txn clients, clients whose table has
 * no configuration, and Apache Omid's clients name no commit table, and a put may carry commit cells of other columns
 * next to tentative data. A put of raw HBase timestamps (milliseconds, not a transaction's) is checked the same way:
 * below every fast-path version, it is refused on a row that holds one.
 * Tentative writes take the row lock shared and fast-path writes take it exclusively (they ride on increments), so a
 * check and a fast-path write of the same row never overlap. The row is read only when the region may hold a fast-path
 * version above S: {@link #bound()}, the region's bootstrap timestamp or the newest version a fast-path write drew here
 * since, whichever is higher; before the bootstrap, always.
 */
final class TentativeWriteCheck {
    private final Region region;
    private final RowReader rows;
    private final RegionBootstrap bootstrap;
    private final LocalVersionClock clock;
    private final AtomicLong newestFastPathVersion = new AtomicLong(-1);

    TentativeWriteCheck(Region region, RowReader rows, RegionBootstrap bootstrap, LocalVersionClock clock) {
        this.region = region;
        this.rows = rows;
        this.bootstrap = bootstrap;
        this.clock = clock;
    }

    /** A fast-path write of this region drew {@code version} (before it becomes readable). */
    void wrote(long version) {
        newestFastPathVersion.accumulateAndGet(version, Math::max);
    }

    /** Every fast-path version in this region is below this; -1 while unknown (the region has not bootstrapped). */
    long bound() {
        long at = bootstrap.at();
        return at < 0 ? -1 : Math.max(at, newestFastPathVersion.get() + 1);
    }

    void check(MiniBatchOperationInProgress<Mutation> batch) throws IOException {
        Set<ByteBuffer> checkedRows = null;
        for (int i = 0; i < batch.size(); i++) {
            if (batch.getOperationStatus(i).getOperationStatusCode() != HConstants.OperationStatusCode.NOT_RUN
                    || !(batch.getOperation(i) instanceof Put put)) {
                continue;
            }
            long writer = tentativeWriter(put);
            if (writer == Long.MAX_VALUE) {
                continue;
            }
            if (checkedRows == null) {
                checkedRows = new HashSet<>();
            }
            if (checkedRows.add(ByteBuffer.wrap(put.getRow()))) {
                refuseIfNewerFastPathCommit(put, writer);
            }
        }
    }

    /**
     * Bumps the clock to the put's commit cells, if any, and returns the lowest writer of its tentative cells (data
     * cells whose commit cell the put does not carry), or {@link Long#MAX_VALUE} when it has none.
     */
    private long tentativeWriter(Put put) {
        long commitTs = -1;
        long writer = Long.MAX_VALUE;
        boolean hasData = false;
        for (List<Cell> family : put.getFamilyCellMap().values()) {
            for (Cell cell : family) {
                if (OnDiskLayout.isCommitCell(cell)) {
                    commitTs = Math.max(commitTs, commitTimestampOrNone(cell));
                } else {
                    hasData = true;
                    writer = Math.min(writer, TimestampLayout.txIdOf(cell.getTimestamp()));
                }
            }
        }
        if (commitTs >= 0) {
            clock.bump(commitTs);
        }
        if (!hasData || commitTs < 0) {
            return writer; // commit cells only (a post-commit, a heal), or tentative data only (the common case)
        }
        // Data and commit cells together: committed on write when each data cell has its commit cell here
        writer = Long.MAX_VALUE;
        for (List<Cell> family : put.getFamilyCellMap().values()) {
            for (Cell cell : family) {
                if (!OnDiskLayout.isCommitCell(cell) && !carriesCommitCellOf(family, cell)) {
                    writer = Math.min(writer, TimestampLayout.txIdOf(cell.getTimestamp()));
                }
            }
        }
        return writer;
    }

    private static boolean carriesCommitCellOf(List<Cell> family, Cell data) {
        for (Cell cell : family) {
            if (cell.getTimestamp() == data.getTimestamp() && OnDiskLayout.isCommitCell(cell)
                    && Bytes.equals(OnDiskLayout.dataQualifierOf(cell), CellUtil.cloneQualifier(data))) {
                return true;
            }
        }
        return false;
    }

    private void refuseIfNewerFastPathCommit(Put put, long writer) throws IOException {
        long since = writer;
        byte[] replay = put.getAttribute(SnapshotAttributes.CONFLICTS_SINCE);
        if (replay != null && replay.length == Bytes.SIZEOF_LONG) {
            since = Math.min(since, Bytes.toLong(replay));
        }
        long bound = bound();
        if (bound >= 0 && since >= bound) {
            return;
        }
        if (bound < 0) {
            bootstrap.start();
        }
        long fastPathCommit = rows.read(put.getRow()).newestFastPathCommit();
        if (fastPathCommit > since) {
            throw FastPathWriteConflictException.of(region.getRegionInfo().getTable().getNameAsString(),
                    Bytes.toStringBinary(put.getRow()), writer, fastPathCommit);
        }
    }

    private static long commitTimestampOrNone(Cell commitCell) {
        return commitCell.getValueLength() == Bytes.SIZEOF_LONG ? OnDiskLayout.commitTimestampOf(commitCell) : -1;
    }
}
