package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.ScanInfo;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.regionserver.StoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileScanner;
import org.apache.hadoop.hbase.regionserver.StoreScanner;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The first pass of {@link StreamedRowGc}: a second store scanner over exactly the files of a compaction, built as
 * HBase's compactor builds its own (same files, same scan type, the read point the compaction began with, every
 * version, no TTL: what {@link TransactionalStoreRetention} makes the compactor's scanner keep), opened lazily at the
 * first oversized row and moved forward only, as the compaction's rows are; it never reads past the end of the row it
 * is asked for. Whatever still differs (another coprocessor's scan options) is caught by {@link StreamedRowGc}'s
 * check.
 */
final class StoreCompactionInput implements StreamedRowGc.CompactionInput {
    private static final int BATCH = 1_024;

    private final HStore store;
    private final List<HStoreFile> files;
    private final ScanType scanType;
    private final long readPoint;
    private StoreScanner scanner;

    /**
     * @param readPoint the store's smallest read point when the compaction began (read in preCompact, right after the
     *                  compactor read its own): HBase's delete markers then apply alike in both scanners
     */
    StoreCompactionInput(HStore store, CompactionRequest request, long readPoint) {
        this.store = store;
        this.readPoint = readPoint;
        this.files = new ArrayList<>();
        for (StoreFile file : request.getFiles()) {
            files.add((HStoreFile) file);
        }
        this.scanType = request.isAllFiles() ? ScanType.COMPACT_DROP_DELETES : ScanType.COMPACT_RETAIN_DELETES;
    }

    @Override
    public boolean readRow(byte[] row, StreamedRowGc.CellSink sink, long maxCells) throws IOException {
        open();
        scanner.reseek(KeyValueUtil.createFirstOnRow(row));
        long count = 0;
        List<Cell> batch = new ArrayList<>(BATCH);
        // A row ends where a call returns fewer cells than the batch (HBase's scanner stops at the row's end, and
        // no other limit is set), or returns none: the next row is never read. The first call after a row that was
        // left unfinished (too many cells) only closes that row and returns nothing: it is called again.
        boolean first = true;
        while (true) {
            batch.clear();
            boolean more = scanner.next(batch, ScannerContext.newBuilder().setBatchLimit(BATCH).build());
            if (batch.isEmpty()) {
                if (first && more) {
                    first = false;
                    continue;
                }
                return true;
            }
            first = false;
            int cmp = compareRow(batch.get(0), row);
            if (cmp > 0) {
                return true; // nothing (more) of the row in the input
            }
            if (cmp == 0) {
                for (Cell cell : batch) {
                    if (++count > maxCells) {
                        return false;
                    }
                    sink.accept(cell);
                }
            }
            scanner.shipped(); // the sink copies what it keeps: the blocks of handed-out cells may go
            if (!more || (cmp == 0 && batch.size() < BATCH)) {
                return true;
            }
        }
    }

    private static int compareRow(Cell cell, byte[] row) {
        return org.apache.hadoop.hbase.util.Bytes.compareTo(cell.getRowArray(), cell.getRowOffset(),
                cell.getRowLength(), row, 0, row.length);
    }

    private void open() throws IOException {
        if (scanner != null) {
            return;
        }
        ColumnFamilyDescriptor family = store.getColumnFamilyDescriptor();
        ScanInfo base = store.getScanInfo();
        ScanInfo everyVersion = new ScanInfo(store.getReadOnlyConfiguration(), family.getName(),
                family.getMinVersions(), Integer.MAX_VALUE, Long.MAX_VALUE, family.getKeepDeletedCells(),
                family.getBlocksize(), base.getTimeToPurgeDeletes(), base.getComparator(),
                family.isNewVersionBehavior());
        List<StoreFileScanner> fileScanners = StoreFileScanner.getScannersForCompaction(files, false, readPoint);
        try {
            scanner = new StoreScanner(store, everyVersion, fileScanners, scanType, readPoint,
                    HConstants.OLDEST_TIMESTAMP);
        } catch (IOException | RuntimeException e) {
            for (StoreFileScanner fileScanner : fileScanners) {
                fileScanner.close(); // as the compactor does: open readers would pin the files
            }
            throw e;
        }
    }

    @Override
    public void close() {
        if (scanner != null) {
            scanner.close();
        }
    }
}
