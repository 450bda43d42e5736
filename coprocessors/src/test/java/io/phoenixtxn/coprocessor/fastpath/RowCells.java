package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One row as the fast path finds it on disk (data cells, commit cells, family-delete markers), handed out in HBase's
 * order, and the answers a commit table gives about its pending writers ({@link #resolver}), counting questions.
 */
final class RowCells {
    static final byte[] ROW = Bytes.toBytes("r");
    static final byte[] F = Bytes.toBytes("f");
    static final long MILLIS = 1_700_000_000_000L;

    private final List<Cell> cells = new ArrayList<>();
    private final Map<Long, Long> commitTable = new HashMap<>();
    private int questions;

    /** The n-th slot start of the tests. */
    static long slot(int n) {
        return TimestampLayout.firstSlotOfMillis(MILLIS) + n * TimestampLayout.SLOT_WIDTH;
    }

    /** A fast-path version: offset {@code k} of the fast-path range of slot {@code n}. */
    static long fp(int n, int k) {
        return slot(n) + TimestampLayout.FAST_PATH_FIRST_OFFSET + k;
    }

    static byte[] q(String qualifier) {
        return Bytes.toBytes(qualifier);
    }

    RowCells committed(String qualifier, long version, long commitTs, long value) {
        data(q(qualifier), version, Bytes.toBytes(value));
        return commitCell(q(qualifier), version, commitTs);
    }

    RowCells tentative(String qualifier, long version, long value) {
        return data(q(qualifier), version, Bytes.toBytes(value));
    }

    RowCells tombstone(String qualifier, long version, long commitTs) {
        data(q(qualifier), version, OnDiskLayout.TOMBSTONE);
        return commitTs == Visibility.NOT_COMMITTED ? this : commitCell(q(qualifier), version, commitTs);
    }

    RowCells familyDelete(long version, long commitTs) {
        return tombstone("", version, commitTs);
    }

    /** The commit table says the writer of {@code version} committed at {@code commitTs} (-1: invalidated). */
    RowCells inCommitTable(long version, long commitTs) {
        commitTable.put(TimestampLayout.txIdOf(version), commitTs);
        return this;
    }

    private RowCells data(byte[] qualifier, long version, byte[] value) {
        cells.add(new KeyValue(ROW, F, qualifier, version, value));
        return this;
    }

    private RowCells commitCell(byte[] qualifier, long version, long commitTs) {
        cells.add(new KeyValue(ROW, F, OnDiskLayout.commitQualifier(qualifier), version,
                OnDiskLayout.encodeCommitTimestamp(commitTs)));
        return this;
    }

    List<Cell> cells() {
        List<Cell> sorted = new ArrayList<>(cells);
        sorted.sort(CellComparator.getInstance());
        return sorted;
    }

    /** The row's commit table and commit cells, as RowReader asks them; a writer it does not know is pending. */
    RowState.Resolver resolver() {
        return (family, qualifier, version) -> {
            questions++;
            Long entry = commitTable.get(TimestampLayout.txIdOf(version));
            if (entry == null) {
                return RowState.PENDING;
            }
            return entry < 0 ? Visibility.NOT_COMMITTED : entry;
        };
    }

    int questions() {
        return questions;
    }

    RowState analyze() throws Exception {
        return RowState.analyze(ROW, cells(), resolver(), 0);
    }
}
