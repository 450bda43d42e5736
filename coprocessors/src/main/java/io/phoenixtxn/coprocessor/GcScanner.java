package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.regionserver.Shipper;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Wraps the store scanner of a flush or compaction: buffers one row of the store at a time, lets {@link RowGc} decide
 * it, and returns the kept cells in their original order. A row with more than {@code rowMaxCells} cells is not
 * buffered whole: in a compaction it is decided by {@link StreamedRowGc} (a first pass over the compaction's input,
 * then each cell of this scanner looked up as it streams by); in a flush, or past the streaming bound, or after the
 * two passes once disagreed, what was gathered and the rest of that row pass unchanged (logged once per scanner).
 *
 * <p>The compactor may tell the scanner to release the blocks its cells point into ({@link Shipper#shipped()}) while
 * cells of an unfinished row are held here: cells held across calls are copied when the inner scanner is a
 * {@link Shipper}, so releasing its blocks never invalidates them.
 */
final class GcScanner implements InternalScanner, Shipper {
    private static final Logger LOG = LoggerFactory.getLogger(GcScanner.class);

    private final InternalScanner delegate;
    private final RowGc rowGc;
    private final GcStatusResolver statuses;
    private final RowGc.OutsideInput outside;
    private final int rowMaxCells;
    private final String where;
    private final boolean copy;
    /** Oversized rows of a compaction: the second scanner, or null (a flush). */
    private final Streaming streaming;

    /** Cells read from the delegate and not yet handed out, in order. */
    private final ArrayDeque<Cell> incoming = new ArrayDeque<>();
    private final List<Cell> batch = new ArrayList<>();
    private boolean delegateDone;
    /** The row being passed unchanged or streamed because it is too large, or null. */
    private Cell oversizedRow;
    /** The verdicts on {@link #oversizedRow} when it is streamed, else null (passed unchanged). */
    private StreamedRowGc.Verdicts verdicts;
    private boolean oversizeLogged;
    private long rowsStreamed;
    private final Set<Long> droppedInvalidated = new LinkedHashSet<>();
    /** Whether this scanner's run was added to {@link GcCounters} (at its first close). */
    private boolean counted;
    private long cellsIn;
    private long cellsOut;

    /** What a compaction's scanner needs to stream oversized rows. */
    record Streaming(StreamedRowGc gc, StreamedRowGc.CompactionInput input, long maxCells, Disagreement onDisagreement) {
    }

    /** Told when the two passes over a row disagreed (the compaction fails): the caller stops streaming. */
    @FunctionalInterface
    interface Disagreement {
        void disagreed(IOException cause);
    }

    GcScanner(InternalScanner delegate, RowGc rowGc, GcStatusResolver statuses, RowGc.OutsideInput outside,
              int rowMaxCells, String where) {
        this(delegate, rowGc, statuses, outside, rowMaxCells, where, null);
    }

    GcScanner(InternalScanner delegate, RowGc rowGc, GcStatusResolver statuses, RowGc.OutsideInput outside,
              int rowMaxCells, String where, Streaming streaming) {
        this.streaming = streaming;
        this.delegate = delegate;
        this.rowGc = rowGc;
        this.statuses = statuses;
        this.outside = outside;
        this.rowMaxCells = rowMaxCells;
        this.where = where;
        this.copy = delegate instanceof Shipper;
    }

    @Override
    public boolean next(List<Cell> result, ScannerContext scannerContext) throws IOException {
        if (oversizedRow != null) {
            passOversizedRow(result, scannerContext);
            return hasMore();
        }
        while (incoming.isEmpty() && !delegateDone) {
            pull(scannerContext);
        }
        if (incoming.isEmpty()) {
            return false;
        }
        Cell first = incoming.peekFirst();
        List<Cell> row = new ArrayList<>();
        while (true) {
            while (!incoming.isEmpty() && CellUtil.matchingRows(incoming.peekFirst(), first)) {
                row.add(incoming.pollFirst());
                if (row.size() > rowMaxCells) {
                    tooLarge(first, result, row);
                    if (!hasMore()) {
                        endOversizedRow(); // its last cell was among those gathered: no later call ends it
                    }
                    return hasMore();
                }
            }
            if (!incoming.isEmpty() || delegateDone) {
                break; // the next row has begun, or there is none: this row is whole
            }
            pull(scannerContext);
        }
        boolean[] keep = rowGc.decide(row, statuses, outside);
        droppedInvalidated.addAll(rowGc.droppedInvalidated());
        int kept = 0;
        for (int i = 0; i < keep.length; i++) {
            if (keep[i]) {
                result.add(row.get(i));
                kept++;
            }
        }
        cellsIn += row.size();
        cellsOut += kept;
        return hasMore();
    }

    /** Writers whose cells this scanner dropped as invalidated. */
    Set<Long> droppedInvalidated() {
        return droppedInvalidated;
    }

    long cellsIn() {
        return cellsIn;
    }

    long cellsOut() {
        return cellsOut;
    }

    private void tooLarge(Cell first, List<Cell> result, List<Cell> gathered) throws IOException {
        oversizedRow = first;
        if (streaming != null) {
            try {
                verdicts = streaming.gc().decide(CellUtil.cloneRow(first), CellUtil.cloneFamily(first),
                        streaming.input(), statuses, outside, streaming.maxCells());
            } catch (IOException | RuntimeException e) {
                // Nothing of the row is out yet: it is written unchanged, the compaction goes on.
                LOG.warn("GC of {}: the first pass over oversized row {} failed; it is written unchanged ({})", where,
                        Bytes.toStringBinary(CellUtil.cloneRow(first)), e.toString());
                verdicts = null;
            }
            if (verdicts != null) {
                rowsStreamed++;
                GcCounters.streamed();
                emit(gathered, result);
                return;
            }
        }
        GcCounters.unchanged();
        if (!oversizeLogged) {
            oversizeLogged = true;
            LOG.warn("GC of {}: row {} has more than {} cells; it is written unchanged (and so is any other such row"
                            + " of this flush or compaction). Raise {} to collect such rows.", where,
                    Bytes.toStringBinary(CellUtil.cloneRow(first)), rowMaxCells, GcConfig.ROW_MAX_CELLS
                            + " (and " + GcConfig.STREAM_MAX_CELLS + ": compactions decide larger rows in two passes,"
                            + " flushes never do)");
        }
        emit(gathered, result);
    }

    /** Hands cells of the oversized row out: the kept ones when it is streamed, else all. */
    private void emit(List<Cell> cells, List<Cell> result) {
        for (Cell cell : cells) {
            if (verdicts == null || verdicts.keep(cell)) {
                result.add(cell);
                cellsOut++;
            }
        }
        cellsIn += cells.size();
    }

    /** Hands out the next cells of the oversized row; ends that state where the next row begins. */
    private void passOversizedRow(List<Cell> result, ScannerContext scannerContext) throws IOException {
        List<Cell> taken = new ArrayList<>();
        while (true) {
            while (!incoming.isEmpty() && CellUtil.matchingRows(incoming.peekFirst(), oversizedRow)) {
                taken.add(incoming.pollFirst());
            }
            if (!incoming.isEmpty() || delegateDone) {
                emit(taken, result);
                endOversizedRow();
                return;
            }
            if (!taken.isEmpty()) {
                break; // more of the row may follow: the next call goes on
            }
            pull(scannerContext);
        }
        emit(taken, result);
    }

    /** After the oversized row's last cell: a streamed row's two passes must have agreed (else this throws). */
    private void endOversizedRow() throws IOException {
        StreamedRowGc.Verdicts done = verdicts;
        oversizedRow = null;
        verdicts = null;
        if (done != null) {
            try {
                done.verifyComplete(where);
            } catch (IOException disagreement) {
                streaming.onDisagreement().disagreed(disagreement);
                throw disagreement;
            }
            droppedInvalidated.addAll(done.droppedInvalidated());
        }
    }

    /** Rows of this scanner decided in two passes ({@link StreamedRowGc}). */
    long rowsStreamed() {
        return rowsStreamed;
    }

    private boolean hasMore() {
        return !incoming.isEmpty() || !delegateDone;
    }

    /** Reads one batch of the delegate into {@code incoming} (copied: see the class comment). */
    private void pull(ScannerContext scannerContext) throws IOException {
        batch.clear();
        boolean more = delegate.next(batch, scannerContext);
        for (Cell cell : batch) {
            incoming.addLast(copy ? KeyValueUtil.copyToNewKeyValue(cell) : cell);
        }
        batch.clear();
        delegateDone = !more;
    }

    @Override
    public void shipped() throws IOException {
        if (delegate instanceof Shipper) {
            ((Shipper) delegate).shipped();
        }
    }

    @Override
    public void close() throws IOException {
        if (!counted) {
            counted = true;
            GcCounters.ran(cellsIn, cellsIn - cellsOut);
        }
        try {
            delegate.close();
        } finally {
            if (streaming != null) {
                streaming.input().close();
            }
        }
    }
}
