package io.phoenixtxn.client.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.SnapshotAttributes;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How fast-path operations travel between {@link FastPathTable} and the region observer, on plain HBase operations:
 *
 * <ul>
 *   <li>A write (bwc, wc, brwc) rides on an {@link Increment} of one placeholder column ({@link #CARRIER_QUALIFIER},
 *       time range [0, 1)) carrying the {@link FastPathRequest} in {@link #WRITE}. HBase runs an increment under the
 *       row's exclusive lock (puts take it shared), returns a result, and, with the nonce its client adds, applies a
 *       resent increment once. The observer removes the placeholder column before the row is locked (so HBase reads
 *       nothing for it), adds the write's data and commit cells at one new version to the carrier's batch, and
 *       replaces its result with the written cells.</li>
 *   <li>A read (brc, br) is a {@link Get} carrying {@link #READ}; the observer answers it itself.</li>
 *   <li>Every answer ends with one outcome cell ({@link #OUTCOME_FAMILY}): whether a write was applied, and the
 *       version (a write's new version, or the row's newest committed version for a read and an unapplied brwc).
 *       {@link #outcomeOf} and {@link #withoutOutcome} take it apart again.</li>
 * </ul>
 * Every fast-path operation names its client's commit table ({@link SnapshotAttributes#COMMIT_TABLE}), like
 * transactional reads and writes.
 */
public final class FastPathWire {
    /** Attribute of the carrier increment: the {@link FastPathRequest}. */
    public static final String WRITE = "phoenix.txn.fastpath.write";
    /** Attribute of a fast-path get (its value: the format, 1). */
    public static final String READ = "phoenix.txn.fastpath.read";
    /** The carrier's placeholder column: a commit-cell-shaped qualifier, which no user column can have. */
    public static final byte[] CARRIER_QUALIFIER = OnDiskLayout.commitQualifier(Bytes.toBytes("phoenix.txn.fastpath"));
    /** Family of the outcome cell (it exists only in answers, never in a table). */
    public static final byte[] OUTCOME_FAMILY = Bytes.toBytes("_phoenix_txn_fastpath");
    private static final byte[] OUTCOME_QUALIFIER = Bytes.toBytes("outcome");
    private static final byte[] READ_FORMAT = {1};

    /** What the outcome cell says. */
    public record Outcome(boolean applied, long version) {
    }

    private FastPathWire() {
    }

    /** The carrier of a write to {@code row}. */
    public static Increment carrier(byte[] row, FastPathRequest request, byte[] commitTable) {
        Increment carrier = new Increment(row);
        try {
            carrier.setTimeRange(0, 1);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a valid time range was refused", e);
        }
        carrier.addColumn(request.anyFamily(), CARRIER_QUALIFIER, 0L);
        carrier.setAttribute(WRITE, request.encode());
        if (commitTable != null) {
            carrier.setAttribute(SnapshotAttributes.COMMIT_TABLE, commitTable);
        }
        carrier.setReturnResults(true);
        carrier.setDurability(Durability.SYNC_WAL); // data and commit together: the commit must be durable
        return carrier;
    }

    /** Marks a get as a fast-path read. */
    public static Get read(Get get, byte[] commitTable) {
        Get read = new Get(get);
        read.setAttribute(READ, READ_FORMAT);
        if (commitTable != null) {
            read.setAttribute(SnapshotAttributes.COMMIT_TABLE, commitTable);
        }
        return read;
    }

    public static boolean isRead(Get get) {
        return get.getAttribute(READ) != null;
    }

    /** The request a carrier increment holds, or null for any other increment. */
    public static byte[] requestOf(Increment increment) {
        return increment.getAttribute(WRITE);
    }

    /** The outcome cell the region server appends to an answer. */
    public static Cell outcomeCell(byte[] row, boolean applied, long version) {
        byte[] value = ByteBuffer.allocate(9).put((byte) (applied ? 1 : 0)).putLong(version).array();
        return new KeyValue(row, OUTCOME_FAMILY, OUTCOME_QUALIFIER, Math.max(0, version), value);
    }

    /** The outcome of an answer; fails clearly when the answer has none (no phoenix-txn observer answered). */
    public static Outcome outcomeOf(Result answer) throws java.io.IOException {
        Cell[] cells = answer.rawCells();
        if (cells != null) {
            for (int i = cells.length - 1; i >= 0; i--) {
                if (isOutcome(cells[i])) {
                    ByteBuffer value = ByteBuffer.wrap(CellUtil.cloneValue(cells[i]));
                    return new Outcome(value.get() == 1, value.getLong());
                }
            }
        }
        throw new java.io.IOException("A fast-path operation came back without its outcome: the table's region"
                + " servers do not run the phoenix-txn observer that serves the fast path (upgrade them, or add "
                + io.phoenixtxn.client.ObserverNames.SNAPSHOT_READ_OBSERVER + " to the table)");
    }

    /** The answer's user cells: the outcome cell removed. */
    public static Result withoutOutcome(Result answer) {
        Cell[] cells = answer.rawCells();
        if (cells == null) {
            return answer;
        }
        List<Cell> user = new ArrayList<>(cells.length);
        for (Cell cell : cells) {
            if (!isOutcome(cell)) {
                user.add(cell);
            }
        }
        return Result.create(user);
    }

    private static boolean isOutcome(Cell cell) {
        return CellUtil.matchingFamily(cell, OUTCOME_FAMILY);
    }
}
