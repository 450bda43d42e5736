package io.phoenixtxn.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class PopulatingRegionScannerTest {
    private static final TableName INDEX = TableName.valueOf("IDX");
    private static final byte[] F = Bytes.toBytes("0");
    private static final long VERSION = 1_700_000_000_000_000_000L;

    /** One index row per data row: key = value of column V, one covered cell. */
    private static final PopulatingRegionScanner.IndexRowBuilder BY_VALUE = (row, cells, out) -> {
        Put put = new Put(CellUtil.cloneValue(cells.get(0)));
        put.addColumn(F, Bytes.toBytes("K"), 1L, row);
        out.accept(INDEX, put);
    };

    /** A pacer that never sees other work: never pauses. */
    private static final PopulationPacer UNPACED = new PopulationPacer(System::nanoTime, nanos -> {
        throw new AssertionError("paused without other work");
    });

    @Test
    void eachPageWritesItsIndexRowsBeforeReportingItsLastRowAndNeverHoldsMoreThanABatch() throws IOException {
        List<String> inFlight = new ArrayList<>();
        List<String> written = new ArrayList<>();
        List<Integer> batchSizes = new ArrayList<>();
        PopulatingRegionScanner.IndexRowSink sink = new PopulatingRegionScanner.IndexRowSink() {
            @Override
            public void write(TableName indexTable, List<Put> rows) {
                batchSizes.add(rows.size());
                for (Put p : rows) {
                    inFlight.add(Bytes.toString(p.getRow()));
                }
            }

            @Override
            public void flush() {
                written.addAll(inFlight); // durable only once flushed
                inFlight.clear();
            }
        };
        PopulatingRegionScanner scanner = new PopulatingRegionScanner(rows(7), BY_VALUE, sink, VERSION, 3, 60_000, 2,
                UNPACED);

        List<Cell> page = new ArrayList<>();
        assertTrue(scanner.nextRaw(page));
        PopulationScan.Page first = PopulationScan.page(Result.create(page));
        assertNotNull(first);
        assertEquals("r2", Bytes.toString(first.lastRow()));
        assertEquals(3, first.scanned());
        assertEquals(3, first.written());
        assertEquals(List.of("v0", "v1", "v2"), written, "every index row of the page is flushed before it is reported");
        assertTrue(inFlight.isEmpty());

        page.clear();
        assertTrue(scanner.nextRaw(page));
        assertEquals("r5", Bytes.toString(PopulationScan.page(Result.create(page)).lastRow()));
        page.clear();
        assertFalse(scanner.nextRaw(page), "the last page ends the scan");
        PopulationScan.Page last = PopulationScan.page(Result.create(page));
        assertEquals("r6", Bytes.toString(last.lastRow()));
        assertEquals(1, last.scanned());
        assertEquals(7, written.size());
        assertTrue(batchSizes.stream().allMatch(n -> n <= 2), "batches " + batchSizes);
        page.clear();
        assertFalse(scanner.nextRaw(page));
        assertTrue(page.isEmpty());
    }

    @Test
    void indexRowsAreCommittedAtThePopulationsVersion() throws IOException {
        List<Put> written = new ArrayList<>();
        PopulatingRegionScanner scanner = new PopulatingRegionScanner(rows(1), BY_VALUE,
                (table, rows) -> written.addAll(rows), VERSION, 10, 60_000, 10, UNPACED);
        scanner.nextRaw(new ArrayList<>());
        assertEquals(1, written.size());
        List<Cell> cells = new ArrayList<>();
        written.get(0).getFamilyCellMap().values().forEach(cells::addAll);
        assertEquals(2, cells.size(), "the covered cell and its commit cell: " + cells);
        for (Cell cell : cells) {
            assertEquals(VERSION, cell.getTimestamp());
        }
    }

    /**
     * HBase ends the client's whole scan (not only this region) when a call returns no cells and the scanner's filter
     * is done: a region whose last rows are invisible ends with such a call, and the range may go on in the next
     * region (after a split).
     */
    @Test
    void aRegionEndingInInvisibleRowsDoesNotEndTheClientsScan() throws IOException {
        PopulatingRegionScanner scanner = new PopulatingRegionScanner(rows(2, 3), BY_VALUE, (t, r) -> { },
                VERSION, 2, 60_000, 10, UNPACED); // a page ends on the last visible row
        List<Cell> page = new ArrayList<>();
        assertTrue(scanner.nextRaw(page), "rows r0, r1, then the invisible r2 still to come");
        page.clear();
        assertFalse(scanner.nextRaw(page));
        assertTrue(page.isEmpty(), "the region's last call returns no cells");
        assertFalse(scanner.isFilterDone(), "so the filter must not say it is done");
    }

    @Test
    void anEmptyRangeReportsNothing() throws IOException {
        PopulatingRegionScanner scanner = new PopulatingRegionScanner(rows(0), BY_VALUE, (t, r) -> {
            throw new AssertionError("nothing to write");
        }, VERSION, 10, 60_000, 10, UNPACED);
        List<Cell> page = new ArrayList<>();
        assertFalse(scanner.nextRaw(page));
        assertTrue(page.isEmpty());
    }

    /**
     * While other work runs on the server, the scanner pauses after each batch in proportion to the batch's time (one
     * population, the default share of 25%: three times as long), and its index rows are marked as a population's own, so they do not count as
     * other work.
     */
    @Test
    void underOtherWorkEachBatchIsFollowedByAPauseAndTheIndexRowsAreMarkedAsThePopulations() throws IOException {
        long[] clock = {0};
        List<Long> pauses = new ArrayList<>();
        PopulationPacer pacer = new PopulationPacer(() -> clock[0], nanos -> {
            pauses.add(nanos);
            clock[0] += nanos;
        });
        List<Put> written = new ArrayList<>();
        PopulatingRegionScanner scanner = new PopulatingRegionScanner(rows(6), BY_VALUE, (table, rows) -> {
            clock[0] += 10_000_000; // each batch takes 10 ms to write
            pacer.foregroundSeen(); // a writer of the table meanwhile
            written.addAll(rows);
        }, VERSION, 100, 60_000, 2, pacer);
        assertFalse(scanner.nextRaw(new ArrayList<>()));
        assertEquals(List.of(30_000_000L, 30_000_000L, 30_000_000L), pauses, "one pause per batch of 2 rows");
        assertEquals(90_000_000L, pacer.pausedNanos());
        assertEquals(6, written.size());
        assertTrue(written.stream().allMatch(PopulationScan::isPopulationWork));
    }

    @Test
    void aProgressCellRoundTripsThroughAResult() {
        Result result = Result.create(List.of(PopulationScan.progressCell(Bytes.toBytes("row"), 12, 34)));
        PopulationScan.Page page = PopulationScan.page(result);
        assertArrayEquals(Bytes.toBytes("row"), page.lastRow());
        assertEquals(12, page.scanned());
        assertEquals(34, page.written());
        assertEquals(null, PopulationScan.page(Result.create(List.of(new KeyValue(Bytes.toBytes("row"), F,
                Bytes.toBytes("V"), 1L, Bytes.toBytes("data"))))), "a data row is not a page");
    }

    /** A region of {@code n} rows r0..r(n-1), each with one visible cell V = v<i>. */
    private static RegionScanner rows(int n) {
        return rows(n, n);
    }

    /**
     * A region of {@code total} rows of which the first {@code visible} have a visible cell; the others are hidden
     * by the snapshot, so the call that reaches them returns no cells, as a filtered region scanner does.
     */
    private static RegionScanner rows(int visible, int total) {
        return new RegionScanner() {
            private int next;

            @Override
            public boolean nextRaw(List<Cell> result) {
                if (next < visible) {
                    result.add(new KeyValue(Bytes.toBytes("r" + next), F, Bytes.toBytes("V"), 5L,
                            Bytes.toBytes("v" + next)));
                    next++;
                    return next < total;
                }
                next = total; // the rest is filtered out in one call
                return false;
            }

            @Override
            public boolean nextRaw(List<Cell> result, ScannerContext context) {
                return nextRaw(result);
            }

            @Override
            public boolean next(List<Cell> result) {
                return nextRaw(result);
            }

            @Override
            public boolean next(List<Cell> result, ScannerContext context) {
                return nextRaw(result);
            }

            @Override
            public RegionInfo getRegionInfo() {
                return null;
            }

            @Override
            public boolean isFilterDone() {
                return false;
            }

            @Override
            public boolean reseek(byte[] row) {
                return false;
            }

            @Override
            public long getMaxResultSize() {
                return Long.MAX_VALUE;
            }

            @Override
            public long getMvccReadPoint() {
                return 0;
            }

            @Override
            public int getBatch() {
                return -1;
            }

            @Override
            public void close() {
            }
        };
    }
}
