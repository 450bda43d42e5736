package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

import java.io.IOException;
import java.util.List;

/**
 * The scanner of a read at Phoenix's MapReduce timestamp that began below the region server's GC horizon: versions
 * visible at that timestamp may have been collected, so the first row it would return fails the scan instead
 * ({@link SnapshotAge#mapReduceReadTooOld}). A region with no row visible at the timestamp answers empty: Phoenix's
 * own IndexTool, which reads at the index's creation millisecond (a timestamp no transaction holds) and is refused at
 * its first write anyway, keeps completing on an empty table as Phoenix's tests expect, instead of failing at random
 * whenever the horizon had just been refreshed past that millisecond.
 */
final class TooOldMapReduceScanner implements RegionScanner {
    private final RegionScanner inner;
    private final DoNotRetryIOException tooOld;

    TooOldMapReduceScanner(RegionScanner inner, DoNotRetryIOException tooOld) {
        this.inner = inner;
        this.tooOld = tooOld;
    }

    private boolean refuseRows(boolean more, List<Cell> result, int before) throws IOException {
        if (result.size() > before) {
            result.subList(before, result.size()).clear();
            throw tooOld;
        }
        return more;
    }

    @Override
    public boolean next(List<Cell> result) throws IOException {
        int before = result.size();
        return refuseRows(inner.next(result), result, before);
    }

    @Override
    public boolean next(List<Cell> result, ScannerContext context) throws IOException {
        int before = result.size();
        return refuseRows(inner.next(result, context), result, before);
    }

    @Override
    public boolean nextRaw(List<Cell> result) throws IOException {
        int before = result.size();
        return refuseRows(inner.nextRaw(result), result, before);
    }

    @Override
    public boolean nextRaw(List<Cell> result, ScannerContext context) throws IOException {
        int before = result.size();
        return refuseRows(inner.nextRaw(result, context), result, before);
    }

    @Override
    public RegionInfo getRegionInfo() {
        return inner.getRegionInfo();
    }

    @Override
    public boolean isFilterDone() throws IOException {
        return inner.isFilterDone();
    }

    @Override
    public boolean reseek(byte[] row) throws IOException {
        return inner.reseek(row);
    }

    @Override
    public long getMaxResultSize() {
        return inner.getMaxResultSize();
    }

    @Override
    public long getMvccReadPoint() {
        return inner.getMvccReadPoint();
    }

    @Override
    public int getBatch() {
        return inner.getBatch();
    }

    @Override
    public void close() throws IOException {
        inner.close();
    }
}
