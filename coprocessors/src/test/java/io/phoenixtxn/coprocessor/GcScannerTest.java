package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.Shipper;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GcScanner} over a store scanner that hands out cells in small batches, the way a compaction's batch limit
 * splits rows: rows are regrouped whole, decided, and emitted in order; an oversized row passes unchanged.
 */
class GcScannerTest {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final long GC = TimestampLayout.firstSlotOfMillis(10_000);

    private static long tx(int millis) {
        return TimestampLayout.firstSlotOfMillis(millis);
    }

    /** A row with {@code versions} committed versions of one column (data and commit cells), all below the horizon. */
    private static List<Cell> hotRow(String row, int versions) {
        List<Cell> cells = new ArrayList<>();
        for (int v = 1; v <= versions; v++) {
            cells.add(new KeyValue(Bytes.toBytes(row), F, Q, tx(v * 10), KeyValue.Type.Put, Bytes.toBytes("v" + v)));
            cells.add(new KeyValue(Bytes.toBytes(row), F, OnDiskLayout.commitQualifier(Q), tx(v * 10),
                    KeyValue.Type.Put, Bytes.toBytes(tx(v * 10 + 1))));
        }
        return cells;
    }

    /** The same, releasing blocks on shipped(). */
    private static final class ShippingScanner extends BatchScanner implements Shipper {
        int shipped;

        ShippingScanner(List<Cell> cells, int batch) {
            super(cells, batch);
        }

        @Override
        public void shipped() {
            shipped++;
        }
    }

    private static GcScanner gc(InternalScanner delegate, int rowMaxCells) {
        GcStatusResolver statuses = new GcStatusResolver(new Horizon(GC, GC), new FakeCommitTable(),
                (row, family, qualifier, version) -> Visibility.NOT_COMMITTED, "test");
        return new GcScanner(delegate, new RowGc(GC, Long.MIN_VALUE, true), statuses, RowGc.OutsideInput.NONE,
                rowMaxCells, "test");
    }

    private static List<Cell> drain(InternalScanner scanner) throws IOException {
        List<Cell> out = new ArrayList<>();
        boolean more;
        int calls = 0;
        do {
            List<Cell> batch = new ArrayList<>();
            more = scanner.next(batch, null);
            out.addAll(batch);
            assertTrue(++calls < 10_000, "the scanner ends");
        } while (more);
        return out;
    }

    private static List<String> rowsAndVersions(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Bytes.toString(CellUtil.cloneRow(c)) + (OnDiskLayout.isCommitCell(c) ? ":C@" : "@")
                    + c.getTimestamp() / TimestampLayout.UNITS_PER_MILLI);
        }
        return out;
    }

    @Test
    void rowsSplitAcrossBatchesAreRegroupedAndCollectedInOrder() throws IOException {
        List<Cell> input = new ArrayList<>();
        input.addAll(hotRow("a", 5));
        input.addAll(hotRow("b", 1));
        input.addAll(hotRow("c", 4));
        for (int batch : new int[] {1, 3, 7, 100}) {
            BatchScanner delegate = new BatchScanner(input, batch);
            GcScanner scanner = gc(delegate, 1_000);
            assertEquals(List.of("a:C@50", "a@50", "b:C@10", "b@10", "c:C@40", "c@40"),
                    rowsAndVersions(drain(scanner)), "batch " + batch);
            assertEquals(20, scanner.cellsIn());
            assertEquals(6, scanner.cellsOut());
            scanner.close();
            assertTrue(delegate.isClosed());
        }
    }

    @Test
    void anOversizedRowPassesUnchangedAndTheNextRowsAreStillCollected() throws IOException {
        List<Cell> input = new ArrayList<>();
        input.addAll(hotRow("a", 2));
        input.addAll(hotRow("big", 10)); // 20 cells, above the cap of 8
        input.addAll(hotRow("z", 3));
        List<String> expected = new ArrayList<>(List.of("a:C@20", "a@20"));
        List<Cell> big = new ArrayList<>(hotRow("big", 10));
        big.sort(CellComparator.getInstance());
        expected.addAll(rowsAndVersions(big));
        expected.addAll(List.of("z:C@30", "z@30"));
        long unchanged = GcCounters.rowsUnchanged();
        for (int batch : new int[] {1, 3, 100}) {
            assertEquals(expected, rowsAndVersions(drain(gc(new BatchScanner(input, batch), 8))), "batch " + batch);
        }
        assertEquals(unchanged + 3, GcCounters.rowsUnchanged(), "one oversized row written unchanged per scan");
        RegionServerTxnMetrics.ensureRegistered();
        assertEquals(GcCounters.rowsUnchanged(), io.phoenixtxn.tm.metrics.MetricsSnapshot.of(
                RegionServerTxnMetrics.source()).get("GcRowsUnchanged"));
    }

    /**
     * A closed GC scanner adds its run, its cells and the cells it dropped to the region server's counters, once,
     * and the region server's metrics source reports them (process-wide counters: deltas).
     */
    @Test
    void droppedCellsAreCountedAndExposed() throws IOException {
        long runs = GcCounters.runs();
        long scanned = GcCounters.cellsScanned();
        long dropped = GcCounters.cellsDropped();
        GcScanner scanner = gc(new BatchScanner(hotRow("a", 5), 3), 1_000);
        assertEquals(2, drain(scanner).size(), "the newest version and its commit cell stay");
        scanner.close();
        scanner.close();
        assertEquals(runs + 1, GcCounters.runs(), "one run, however often it is closed");
        assertEquals(scanned + 10, GcCounters.cellsScanned());
        assertEquals(dropped + 8, GcCounters.cellsDropped());

        RegionServerTxnMetrics.ensureRegistered();
        assertTrue(RegionServerTxnMetrics.registered());
        java.util.Map<String, Number> exposed = io.phoenixtxn.tm.metrics.MetricsSnapshot.of(
                RegionServerTxnMetrics.source());
        assertEquals(GcCounters.cellsDropped(), exposed.get("GcCellsDropped"));
        assertEquals(GcCounters.cellsScanned(), exposed.get("GcCellsScanned"));
        assertEquals(GcCounters.runs(), exposed.get("GcRuns"));
        assertEquals(GcCounters.rowsStreamed(), exposed.get("GcRowsStreamed"));
    }

    @Test
    void anEmptyStoreEndsAtOnce() throws IOException {
        GcScanner scanner = gc(new BatchScanner(List.of(), 10), 10);
        List<Cell> out = new ArrayList<>();
        assertFalse(scanner.next(out, null));
        assertTrue(out.isEmpty());
    }

    @Test
    void cellsHeldAcrossCallsAreCopiesWhenTheStoreScannerReleasesBlocks() throws IOException {
        List<Cell> input = hotRow("a", 3);
        ShippingScanner delegate = new ShippingScanner(input, 2);
        GcScanner scanner = gc(delegate, 100);
        List<Cell> out = drain(scanner);
        scanner.shipped();
        assertEquals(1, delegate.shipped, "shipped() reaches the store scanner");
        for (Cell cell : out) {
            for (Cell original : delegate.cells) {
                assertNotSame(original, cell, "a cell pointing into a released block");
            }
        }
        assertEquals(2, out.size());
    }
}
