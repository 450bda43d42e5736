package io.phoenixtxn.bulkload;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;

import java.io.IOException;

/**
 * A cell of Phoenix's bulk-load output as our transactional layout has it: every cell at the load's start timestamp;
 * a column set to null (Phoenix emits a DeleteColumn) becomes the tombstone of our layout, a cell with an empty
 * value (an HBase delete marker would hide committed versions from every reader at once, before the load commits).
 */
final class LoadCells {
    private LoadCells() {
    }

    static Cell atVersion(Cell cell, long version) throws IOException {
        byte[] value;
        switch (cell.getType()) {
            case Put:
                value = CellUtil.cloneValue(cell);
                break;
            case DeleteColumn:
            case Delete:
                value = HConstants.EMPTY_BYTE_ARRAY;
                break;
            default:
                throw new IOException("A " + cell.getType() + " cell cannot be bulk loaded into a transactional table"
                        + " (row " + org.apache.hadoop.hbase.util.Bytes.toStringBinary(CellUtil.cloneRow(cell))
                        + "); Phoenix's bulk-load mapper emits puts and column deletes only");
        }
        return new KeyValue(CellUtil.cloneRow(cell), CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell),
                version, KeyValue.Type.Put, value);
    }
}
