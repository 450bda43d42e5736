package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValueUtil;

/**
 * Family-delete markers a snapshot read has met but not decided yet. A marker's qualifier is empty, so it sorts
 * before its own commit cell ({@code 00 C2 80 C2 80}), which the read meets a little later, before any ordinary data
 * of the family: {@link SnapshotReadFilter} holds the newest few markers of a family until then instead of reading
 * each one's commit cell from the region. Bounded: a row deleted more often decides its markers as before
 * (resolution in place), so a read never holds more than {@link #CAPACITY} of them. Newest first; reused.
 */
final class PendingFamilyDeletes {
    static final int CAPACITY = 8;

    private final long[] versions = new long[CAPACITY];
    private int count;
    /**
     * A copy of the first marker's key: its row and family, should one of them have to be resolved. A copy, because
     * the scanner may hand its blocks back between the marker and the decision (a partial row's RPC ends).
     */
    private Cell marker;

    boolean isEmpty() {
        return count == 0;
    }

    boolean isFull() {
        return count == CAPACITY;
    }

    /** Adds a marker older than every one held (the scan's order). */
    void add(Cell markerCell, long version) {
        if (count == CAPACITY) {
            throw new IllegalStateException("Already holding " + CAPACITY + " family-delete markers");
        }
        if (count == 0) {
            marker = KeyValueUtil.toNewKeyCell(markerCell);
        }
        versions[count++] = version;
    }

    int size() {
        return count;
    }

    /** The {@code i}-th newest version held. */
    long version(int i) {
        return versions[i];
    }

    Cell marker() {
        return marker;
    }

    void clear() {
        count = 0;
        marker = null;
    }
}
