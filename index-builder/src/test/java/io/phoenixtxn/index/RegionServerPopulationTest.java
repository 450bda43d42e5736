package io.phoenixtxn.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RegionServerPopulationTest {
    private static final RegionServerPopulation.Settings SETTINGS = new RegionServerPopulation.Settings(4, 10, 1000,
            100, 3);
    private static final byte[] MAINTAINERS = {1, 2, 3};

    @AfterEach
    void forget() {
        IndexBuildProgress.running().values().forEach(p -> p.finish(false));
    }

    @Test
    void aRangeWhoseScannerFailsResumesRightAfterTheLastRowItsRegionServerReported() throws IOException {
        List<Scan> opened = Collections.synchronizedList(new ArrayList<>());
        RegionServerPopulation population = new RegionServerPopulation(scan -> {
            opened.add(scan);
            if (opened.size() == 1) {
                return scanner(List.of(page("b", 5, 5)), new IOException("region server crashed"));
            }
            return scanner(List.of(page("d", 3, 3)), null);
        }, SETTINGS);
        IndexBuildProgress progress = IndexBuildProgress.forFence(9001, "T");
        progress.onRegionServers("IDX", 1, 1);
        population.run(ranges(new byte[0]), MAINTAINERS, 77, progress);

        assertEquals(2, opened.size());
        Scan resumed = opened.get(1);
        assertEquals("b", Bytes.toString(resumed.getStartRow()));
        assertFalse(resumed.includeStartRow(), "the reported row is done: resume after it");
        assertEquals(77, PopulationScan.version(resumed));
        assertEquals(8, progress.getRowsScanned());
        assertEquals(8, progress.getRowsWritten());
        assertEquals(1, progress.getRangesDone());
    }

    @Test
    void everyRegionIsScannedOnceInParallelAndCounted() throws IOException {
        List<Scan> opened = Collections.synchronizedList(new ArrayList<>());
        RegionServerPopulation population = new RegionServerPopulation(scan -> {
            opened.add(scan);
            return scanner(List.of(page(Bytes.toString(scan.getStartRow()) + "z", 2, 4)), null);
        }, SETTINGS);
        IndexBuildProgress progress = IndexBuildProgress.forFence(9002, "T");
        progress.onRegionServers("IDX", 3, 3);
        population.run(ranges(new byte[0], Bytes.toBytes("m"), Bytes.toBytes("t")), MAINTAINERS, 1, progress);
        assertEquals(3, opened.size());
        assertEquals(3, progress.getRangesDone());
        assertEquals(6, progress.getRowsScanned());
        assertEquals(12, progress.getRowsWritten());
        assertTrue(opened.stream().allMatch(PopulationScan::isPopulation));
    }

    @Test
    void aRangeFailingOnEveryAttemptFailsThePopulationNamingItsRange() {
        RegionServerPopulation population = new RegionServerPopulation(
                scan -> scanner(List.of(), new IOException("no region server")), SETTINGS);
        IndexBuildProgress progress = IndexBuildProgress.forFence(9003, "T");
        IOException e = assertThrows(IOException.class,
                () -> population.run(ranges(new byte[0]), MAINTAINERS, 1, progress));
        assertTrue(e.getMessage().contains("failed after 3 attempts"), e.getMessage());
        assertEquals(0, progress.getRangesDone());
    }

    @Test
    void aRangeThatFailsStopsTheOthersInsteadOfWaitingForThem() {
        RegionServerPopulation population = new RegionServerPopulation(scan -> {
            if (scan.getStartRow().length == 0) {
                throw new IOException("the first region's server is gone");
            }
            return endlessPages(); // without the stop, this range never ends
        }, new RegionServerPopulation.Settings(4, 10, 1000, 100, 1));
        IndexBuildProgress progress = IndexBuildProgress.forFence(9005, "T");
        IOException e = assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                () -> assertThrows(IOException.class, () -> population.run(ranges(new byte[0], Bytes.toBytes("m")),
                        MAINTAINERS, 1, progress)));
        assertTrue(e.getMessage().contains("the first region's server is gone"), e.getMessage());
    }

    @Test
    void aRegionServerAnsweringWithDataRowsIsNotSupportedAndNotRetried() {
        List<Scan> opened = Collections.synchronizedList(new ArrayList<>());
        RegionServerPopulation population = new RegionServerPopulation(scan -> {
            opened.add(scan);
            return scanner(List.of(Result.create(List.of(new KeyValue(Bytes.toBytes("a"), Bytes.toBytes("0"),
                    Bytes.toBytes("V"), 1L, Bytes.toBytes("data"))))), null);
        }, SETTINGS);
        assertThrows(RegionServerPopulation.NotSupportedException.class, () -> population.run(
                ranges(new byte[0]), MAINTAINERS, 1, IndexBuildProgress.forFence(9004, "T")));
        assertEquals(1, opened.size());
    }

    private static ResultScanner endlessPages() {
        long[] n = {0};
        return scannerOf(() -> page("m" + (n[0]++), 1, 1));
    }

    private static Result page(String lastRow, long scanned, long written) {
        return Result.create(List.of(PopulationScan.progressCell(Bytes.toBytes(lastRow), scanned, written)));
    }

    /** Region boundaries: each start key begins a region that ends at the next one (the last at the table's end). */
    private static Pair<byte[][], byte[][]> ranges(byte[]... starts) {
        byte[][] ends = new byte[starts.length][];
        for (int i = 0; i < starts.length; i++) {
            ends[i] = i + 1 < starts.length ? starts[i + 1] : new byte[0];
        }
        return new Pair<>(starts, ends);
    }

    /** Returns {@code results}, then throws {@code failure} if given, else ends. */
    private static ResultScanner scanner(List<Result> results, IOException failure) {
        Iterator<Result> it = results.iterator();
        return scannerOf(() -> {
            if (it.hasNext()) {
                return it.next();
            }
            if (failure != null) {
                throw failure;
            }
            return null;
        });
    }

    /** What a scanner's next() returns, call by call. */
    private interface NextResult {
        Result next() throws IOException;
    }

    private static ResultScanner scannerOf(NextResult next) {
        return new ResultScanner() {
            @Override
            public Result next() throws IOException {
                return next.next();
            }

            @Override
            public void close() {
            }

            @Override
            public boolean renewLease() {
                return false;
            }

            @Override
            public ScanMetrics getScanMetrics() {
                return null;
            }
        };
    }
}
