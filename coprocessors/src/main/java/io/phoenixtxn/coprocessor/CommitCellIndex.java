package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

import java.util.Arrays;

/**
 * The commit cells a snapshot read has kept while passing one family of one row, by data qualifier and version: a
 * read meets a column's commit cells before its data (their qualifiers start with 0x00) and looks them up when the
 * data arrives. The read keeps only the commit cells it may need, a handful per column (see
 * {@link SnapshotReadFilter}), never the row's history.
 *
 * <p>Flat arrays reused from row to row: once they have grown to the widest row, recording and looking up allocate
 * nothing (no boxed keys, no copied qualifiers per cell). A column's commit cells are recorded together, in the
 * scan's order, so each column is one run of entries. Not thread-safe: one per filter, and HBase drives a filter
 * from one thread at a time.
 */
final class CommitCellIndex {
    /** What {@link #commitTimestampOf} answers when no commit cell of that version was kept. */
    static final long UNKNOWN = Long.MIN_VALUE;

    /** The data qualifiers of the columns, back to back. */
    private byte[] qualifiers = new byte[64];
    private int qualifierBytes;
    /** Per column c: where its qualifier sits in {@link #qualifiers}; its entries: [firstEntry[c], firstEntry[c+1]). */
    private int[] qualifierOffset = new int[8];
    private int[] qualifierLength = new int[8];
    private int[] firstEntry = new int[9];
    private int columns;
    /** Per entry: the version and its commit timestamp. */
    private long[] versions = new long[16];
    private long[] commitTimestamps = new long[16];
    private int entries;
    /** The column a lookup tries first: data columns arrive in about the order their commit cells did. */
    private int cursor;

    /** Forgets everything (a new row or family). */
    void clear() {
        qualifierBytes = 0;
        columns = 0;
        entries = 0;
        cursor = 0;
    }

    /** Keeps one commit cell: the version of its data column and that version's commit timestamp. */
    void record(Cell commitCell, long commitTs) {
        int start = OnDiskLayout.dataQualifierStart(commitCell);
        int length = OnDiskLayout.dataQualifierLength(commitCell);
        if (columns == 0 || !sameQualifier(columns - 1, commitCell, start, length)) {
            addColumn(commitCell, start, length);
        }
        if (entries == versions.length) {
            versions = Arrays.copyOf(versions, entries * 2);
            commitTimestamps = Arrays.copyOf(commitTimestamps, entries * 2);
        }
        versions[entries] = commitCell.getTimestamp();
        commitTimestamps[entries] = commitTs;
        entries++;
        firstEntry[columns] = entries;
    }

    /** The commit timestamp kept for this version of the data cell's column, or {@link #UNKNOWN}. */
    long commitTimestampOf(Cell dataCell, long version) {
        return commitTimestampIn(columnOf(dataCell), version);
    }

    /** The commit timestamp kept for this version of the column named by {@code qualifier}, or {@link #UNKNOWN}. */
    long commitTimestampOf(byte[] qualifier, long version) {
        for (int column = 0; column < columns; column++) {
            if (Bytes.equals(qualifiers, qualifierOffset[column], qualifierLength[column], qualifier, 0,
                    qualifier.length)) {
                return commitTimestampIn(column, version);
            }
        }
        return UNKNOWN;
    }

    private long commitTimestampIn(int column, long version) {
        if (column < 0) {
            return UNKNOWN;
        }
        // A column's entries are newest version first (the scan's order): binary search, descending.
        int low = firstEntry[column];
        int high = firstEntry[column + 1] - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (versions[mid] == version) {
                return commitTimestamps[mid];
            }
            if (versions[mid] > version) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return UNKNOWN;
    }

    /** How many commit cells are kept (for tests: the read must not keep the row's history). */
    int size() {
        return entries;
    }

    private int columnOf(Cell dataCell) {
        for (int i = 0; i < columns; i++) {
            int column = (cursor + i) % columns;
            if (CellUtil.matchingQualifier(dataCell, qualifiers, qualifierOffset[column], qualifierLength[column])) {
                cursor = column + 1 == columns ? 0 : column + 1;
                return column;
            }
        }
        return -1;
    }

    private boolean sameQualifier(int column, Cell commitCell, int start, int length) {
        if (qualifierLength[column] != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (qualifiers[qualifierOffset[column] + i] != qualifierByte(commitCell, start + i)) {
                return false;
            }
        }
        return true;
    }

    private void addColumn(Cell commitCell, int start, int length) {
        if (columns == qualifierOffset.length) {
            qualifierOffset = Arrays.copyOf(qualifierOffset, columns * 2);
            qualifierLength = Arrays.copyOf(qualifierLength, columns * 2);
            firstEntry = Arrays.copyOf(firstEntry, columns * 2 + 1);
        }
        if (qualifierBytes + length > qualifiers.length) {
            qualifiers = Arrays.copyOf(qualifiers, Math.max(qualifiers.length * 2, qualifierBytes + length));
        }
        for (int i = 0; i < length; i++) {
            qualifiers[qualifierBytes + i] = qualifierByte(commitCell, start + i);
        }
        qualifierOffset[columns] = qualifierBytes;
        qualifierLength[columns] = length;
        qualifierBytes += length;
        firstEntry[columns] = entries;
        columns++;
        firstEntry[columns] = entries;
    }

    /** One byte of a cell's qualifier, wherever the cell keeps its bytes (array or buffer), without copying. */
    private static byte qualifierByte(Cell cell, int index) {
        if (cell instanceof ByteBufferExtendedCell) {
            ByteBufferExtendedCell bb = (ByteBufferExtendedCell) cell;
            return bb.getQualifierByteBuffer().get(bb.getQualifierPosition() + index);
        }
        return cell.getQualifierArray()[cell.getQualifierOffset() + index];
    }
}
