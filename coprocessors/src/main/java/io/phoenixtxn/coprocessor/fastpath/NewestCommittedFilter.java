package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.filter.FilterBase;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The bounded walk of a fast-path read of one row: per column, the newest commit cell and the data versions down to
 * it (the ones above it are pending, aborted, or committed without a commit cell yet; {@link RowState} tells them
 * apart). A row's history costs nothing beyond that: older versions are skipped with NEXT_COL.
 *
 * <p>Commit cells ({@code 00 C2 80 q C2 80}) of a family sort before its data for qualifiers that do not start with
 * 0x00, so the filter knows each column's newest commit-celled version before it meets the column's data. For the
 * others (the family-delete marker's empty qualifier, 0x00 qualifiers) and for columns without any commit cell, it
 * takes the newest {@link #LIMIT} versions of data and of commit cells; {@link RowState} reports a column it could not
 * decide from those, and {@link RowReader} reads that one column whole. Used only by region-internal scans; never
 * serialized.
 */
final class NewestCommittedFilter extends FilterBase {
    /** Versions taken of a column whose commit cells do not come first. */
    static final int LIMIT = 16;

    private Cell family;
    private Cell column;
    private int versionsOfColumn;
    /** Data qualifier to the version of its newest commit cell, in the current family. */
    private final Map<ByteBuffer, Long> newestCommitCell = new HashMap<>();

    @Override
    public ReturnCode filterCell(Cell cell) {
        if (family == null || !CellUtil.matchingFamily(cell, family)) {
            family = cell;
            column = null;
            newestCommitCell.clear();
        }
        if (column == null || !CellUtil.matchingQualifier(cell, column)) {
            column = cell;
            versionsOfColumn = 0;
        }
        versionsOfColumn++;
        if (OnDiskLayout.isCommitCell(cell)) {
            byte[] dataQualifier = OnDiskLayout.dataQualifierOf(cell);
            if (sortsBeforeItsCommitCells(dataQualifier)) {
                return versionsOfColumn <= LIMIT ? ReturnCode.INCLUDE : ReturnCode.NEXT_COL;
            }
            newestCommitCell.put(ByteBuffer.wrap(dataQualifier), cell.getTimestamp());
            return ReturnCode.INCLUDE_AND_NEXT_COL;
        }
        Long newest = newestCommitCell.get(ByteBuffer.wrap(CellUtil.cloneQualifier(cell)));
        if (newest == null) {
            return versionsOfColumn <= LIMIT ? ReturnCode.INCLUDE : ReturnCode.NEXT_COL;
        }
        // At the newest commit-celled version the column's walk ends; below it, that version's data is missing
        // and this older one ends the walk instead (RowState resolves it).
        return cell.getTimestamp() > newest ? ReturnCode.INCLUDE : ReturnCode.INCLUDE_AND_NEXT_COL;
    }

    /** Conservative: every 0x00 qualifier is treated so, though only some sort before their commit cells. */
    static boolean sortsBeforeItsCommitCells(byte[] dataQualifier) {
        return dataQualifier.length == 0 || dataQualifier[0] == 0;
    }
}
