package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.ByteBufferKeyValue;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One row written the way our client writes it (data cells at the writer's version, commit cells beside them, the
 * family-delete marker on the empty qualifier), handed out in HBase's order, on heap or, as a memstore hands cells
 * out, in byte buffers. Also the row's {@link CommitCellReader}, as the region reads commit cells, counting reads.
 */
final class SyntheticRow implements CommitCellReader {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final long MILLIS = 1_000;

    private final byte[] row;
    private final List<Cell> cells = new ArrayList<>();
    private byte[] family = FAMILY;
    private int commitCellReads;
    private final List<Long> healed = new ArrayList<>();

    SyntheticRow(String row) {
        this.row = Bytes.toBytes(row);
    }

    /** The n-th transaction id of the tests: slot starts, 1,000 per millisecond. */
    static long tx(long n) {
        return TimestampLayout.firstSlotOfMillis(MILLIS + n / 1_000) + (n % 1_000) * TimestampLayout.SLOT_WIDTH;
    }

    static byte[] q(String qualifier) {
        return Bytes.toBytes(qualifier);
    }

    /** Later cells go to this family. */
    SyntheticRow family(String name) {
        family = Bytes.toBytes(name);
        return this;
    }

    /** A version committed at {@code commitTs}: its data cell and its commit cell. */
    SyntheticRow committed(byte[] qualifier, long version, long commitTs, String value) {
        return tentative(qualifier, version, value).commitCell(qualifier, version, commitTs);
    }

    /** A data cell without a commit cell; a null value writes a tombstone (column delete). */
    SyntheticRow tentative(byte[] qualifier, long version, String value) {
        cells.add(new KeyValue(row, family, qualifier, version, value == null ? OnDiskLayout.TOMBSTONE
                : Bytes.toBytes(value)));
        return this;
    }

    SyntheticRow commitCell(byte[] qualifier, long version, long commitTs) {
        cells.add(new KeyValue(row, family, OnDiskLayout.commitQualifier(qualifier), version,
                OnDiskLayout.encodeCommitTimestamp(commitTs)));
        return this;
    }

    /** A row (family) delete: the marker, and its commit cell unless {@code commitTs} is NOT_COMMITTED. */
    SyntheticRow familyDelete(long version, long commitTs) {
        tentative(OnDiskLayout.FAMILY_DELETE_QUALIFIER, version, null);
        return commitTs == Visibility.NOT_COMMITTED ? this
                : commitCell(OnDiskLayout.FAMILY_DELETE_QUALIFIER, version, commitTs);
    }

    /** The row's cells as added (tests add cells of their own making). */
    List<Cell> cellsForTest() {
        return cells;
    }

    /** The cells in HBase's order, on heap. */
    List<Cell> cells() {
        List<Cell> sorted = new ArrayList<>(cells);
        sorted.sort(CellComparator.getInstance());
        return sorted;
    }

    /** The cells in HBase's order, each in a direct byte buffer (their get...Array() copy, as a memstore's do). */
    List<Cell> offHeapCells() {
        List<Cell> out = new ArrayList<>();
        for (Cell cell : cells()) {
            KeyValue kv = (KeyValue) cell;
            ByteBuffer buffer = ByteBuffer.allocateDirect(kv.getLength());
            buffer.put(kv.getBuffer(), kv.getOffset(), kv.getLength());
            out.add(new ByteBufferKeyValue(buffer, 0, kv.getLength()));
        }
        return out;
    }

    @Override
    public long read(byte[] readRow, byte[] readFamily, byte[] qualifier, long version) {
        commitCellReads++;
        byte[] commitQualifier = OnDiskLayout.commitQualifier(qualifier);
        for (Cell cell : cells) {
            if (cell.getTimestamp() == version && CellUtil.matchingRows(cell, readRow)
                    && CellUtil.matchingColumn(cell, readFamily, commitQualifier)) {
                return OnDiskLayout.commitTimestampOf(cell);
            }
        }
        return Visibility.NOT_COMMITTED;
    }

    @Override
    public void committedWithoutCommitCell(byte[] readRow, byte[] readFamily, byte[] qualifier, long version,
                                           long commitTs) {
        healed.add(version);
    }

    /** How often the commit cell of one version was read from "the region" (resolution, not the scan). */
    int commitCellReads() {
        return commitCellReads;
    }

    /** Versions the reader found committed without a commit cell (and would heal). */
    List<Long> healed() {
        return healed;
    }
}
