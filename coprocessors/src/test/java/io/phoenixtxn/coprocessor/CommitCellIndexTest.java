package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link CommitCellIndex}: kept commit cells by data column and version, whatever order the data arrives in. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CommitCellIndexTest {
    private static final byte[] ROW = Bytes.toBytes("r");

    @Test
    void findsEveryKeptVersionOfManyColumnsInAnyOrder() {
        CommitCellIndex index = new CommitCellIndex();
        SyntheticRow row = new SyntheticRow("r");
        List<byte[]> qualifiers = new ArrayList<>();
        for (int c = 0; c < 300; c++) {
            byte[] q = Bytes.toBytes("c" + c);
            qualifiers.add(q);
            for (int v = 5; v >= 1; v--) { // newest first, as the scan records them
                row.commitCell(q, SyntheticRow.tx(v), SyntheticRow.tx(100 * c + v));
            }
        }
        for (Cell cell : row.offHeapCells()) { // HBase's order: by commit qualifier, then newest first
            index.record(cell, OnDiskLayout.commitTimestampOf(cell));
        }
        assertEquals(1_500, index.size());
        List<byte[]> dataOrder = new ArrayList<>(qualifiers);
        Collections.shuffle(dataOrder, new java.util.Random(3));
        for (byte[] q : dataOrder) {
            int c = Integer.parseInt(Bytes.toString(q).substring(1));
            for (int v = 1; v <= 5; v++) {
                assertEquals(SyntheticRow.tx(100 * c + v), index.commitTimestampOf(data(q, SyntheticRow.tx(v)),
                        SyntheticRow.tx(v)), Bytes.toString(q) + " v" + v);
            }
            assertEquals(CommitCellIndex.UNKNOWN, index.commitTimestampOf(data(q, SyntheticRow.tx(6)),
                    SyntheticRow.tx(6)), "a version without a kept commit cell");
        }
        assertEquals(CommitCellIndex.UNKNOWN, index.commitTimestampOf(data(Bytes.toBytes("c"), SyntheticRow.tx(1)),
                SyntheticRow.tx(1)), "a prefix of kept qualifiers is another column");
        index.clear();
        assertEquals(0, index.size());
        assertEquals(CommitCellIndex.UNKNOWN, index.commitTimestampOf(data(qualifiers.get(0), SyntheticRow.tx(1)),
                SyntheticRow.tx(1)));
    }

    @Test
    void theFamilyDeleteColumnIsLookedUpByItsEmptyQualifier() {
        CommitCellIndex index = new CommitCellIndex();
        index.record(new KeyValue(ROW, SyntheticRow.FAMILY, OnDiskLayout.commitQualifier(Bytes.toBytes("a")), 7L,
                OnDiskLayout.encodeCommitTimestamp(8)), 8);
        index.record(new KeyValue(ROW, SyntheticRow.FAMILY, OnDiskLayout.commitQualifier(new byte[0]), 5L,
                OnDiskLayout.encodeCommitTimestamp(6)), 6);
        assertEquals(6, index.commitTimestampOf(OnDiskLayout.FAMILY_DELETE_QUALIFIER, 5));
        assertEquals(8, index.commitTimestampOf(Bytes.toBytes("a"), 7));
        assertEquals(CommitCellIndex.UNKNOWN, index.commitTimestampOf(OnDiskLayout.FAMILY_DELETE_QUALIFIER, 7));
    }

    private static Cell data(byte[] qualifier, long version) {
        return new KeyValue(ROW, SyntheticRow.FAMILY, qualifier, version, Bytes.toBytes("x"));
    }
}
