package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

import java.util.ArrayList;
import java.util.List;

/**
 * A store scanner over given cells (sorted as a store sorts them) handing out {@code batch} cells per call, across
 * row boundaries, as HBase's compaction scanner may: for tests of the scanners GC wraps around it.
 */
class BatchScanner implements InternalScanner {
    final List<Cell> cells; // sorted; tests compare what the scanner under test returns with them
    private final int batch;
    private int position;
    private boolean closed;

    BatchScanner(List<Cell> cells, int batch) {
        this.cells = new ArrayList<>(cells);
        this.cells.sort(CellComparator.getInstance());
        this.batch = batch;
    }

    @Override
    public boolean next(List<Cell> result, ScannerContext scannerContext) {
        for (int i = 0; i < batch && position < cells.size(); i++) {
            result.add(cells.get(position++));
        }
        return position < cells.size();
    }

    @Override
    public void close() {
        closed = true;
    }

    boolean isClosed() {
        return closed;
    }
}
