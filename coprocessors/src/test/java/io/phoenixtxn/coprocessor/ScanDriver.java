package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.filter.Filter;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a region's StoreScanner and UserScanQueryMatcher (HBase 2.6) do with a scan's filter, over synthetic rows,
 * so that a filter's cost can be counted: cells above the scan's time range are skipped before the filter sees
 * them; NEXT_COL and INCLUDE_AND_NEXT_COL move to the next column; SEEK_NEXT_USING_HINT seeks to the filter's hint
 * when it lies ahead in the scan's direction (a reversed scan runs forward within a row, so an in-row hint forward
 * is not honoured there and the scanner moves one cell on); NEXT_ROW ends the row.
 */
final class ScanDriver {
    private final Filter filter;
    private final long maxVersionExclusive;
    private final boolean reversed;
    private int offered;
    private int hints;
    private int honouredHints;

    /** A scan without a time range. */
    ScanDriver(Filter filter, boolean reversed) {
        this(filter, Long.MAX_VALUE, reversed);
    }

    /** A scan with the time range [0, maxVersionExclusive), as our client sets for a snapshot. */
    ScanDriver(Filter filter, long maxVersionExclusive, boolean reversed) {
        this.filter = filter;
        this.maxVersionExclusive = maxVersionExclusive;
        this.reversed = reversed;
        filter.setReversed(reversed);
    }

    /** The cells the scan returns for one row (cells sorted in HBase's order), or an empty list. */
    List<Cell> row(List<Cell> cells) throws IOException {
        List<Cell> results = new ArrayList<>();
        if (cells.isEmpty() || filter.filterAllRemaining()) {
            return results;
        }
        filter.reset();
        if (filter.filterRowKey(cells.get(0))) {
            return results;
        }
        int i = 0;
        while (i < cells.size()) {
            Cell cell = cells.get(i);
            if (cell.getTimestamp() >= maxVersionExclusive) {
                i++;
                continue;
            }
            offered++;
            Filter.ReturnCode code = filter.filterCell(cell);
            switch (code) {
                case INCLUDE:
                    results.add(filter.transformCell(cell));
                    i++;
                    break;
                case INCLUDE_AND_NEXT_COL:
                    results.add(filter.transformCell(cell));
                    i = nextColumn(cells, i);
                    break;
                case SKIP:
                    i++;
                    break;
                case NEXT_COL:
                    i = nextColumn(cells, i);
                    break;
                case NEXT_ROW:
                    i = cells.size();
                    break;
                case INCLUDE_AND_SEEK_NEXT_ROW:
                    results.add(filter.transformCell(cell));
                    i = cells.size();
                    break;
                case SEEK_NEXT_USING_HINT:
                    hints++;
                    Cell hint = filter.getNextCellHint(cell);
                    int cmp = hint == null ? 0 : CellComparator.getInstance().compare(hint, cell);
                    if (hint != null && (reversed ? cmp < 0 : cmp > 0)) {
                        honouredHints++;
                        i = firstAtOrAfter(cells, hint);
                    } else {
                        i++;
                    }
                    break;
                default:
                    throw new IllegalStateException("Unexpected return code " + code);
            }
        }
        filter.filterRowCells(results);
        if (filter.hasFilterRow() && filter.filterRow()) {
            results.clear();
        }
        return results;
    }

    /** Cells the filter was offered so far. */
    int offered() {
        return offered;
    }

    /** SEEK_NEXT_USING_HINT answers so far, and how many of them the scanner honoured. */
    int hints() {
        return hints;
    }

    int honouredHints() {
        return honouredHints;
    }

    private static int nextColumn(List<Cell> cells, int i) {
        Cell column = cells.get(i);
        int next = i + 1;
        while (next < cells.size() && CellUtil.matchingColumn(cells.get(next), column)) {
            next++;
        }
        return next;
    }

    private static int firstAtOrAfter(List<Cell> cells, Cell key) {
        int low = 0;
        int high = cells.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (CellComparator.getInstance().compare(cells.get(mid), key) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
