package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.StoreFile;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compaction-time garbage collection of one region's transactional stores (FAST'17 sec. 5.3 "garbage collection",
 * with the reader-aware horizon of {@link GcHorizon} instead of Omid's low-water mark): wraps the scanner of every
 * flush and compaction in a {@link GcScanner}. Exactly one observer of a region calls it: the GC observer where the
 * table carries one, else the read observer (tables created before GC existed).
 *
 * <ul>
 *   <li>Horizon unknown: nothing is collected.</li>
 *   <li>Compaction: {@link io.phoenixtxn.snapshot.FamilyGc} below the horizon, its {@code major} flag set when the
 *       input is every file of the store; the family's TTL expires versions committed (in milliseconds) more than
 *       the TTL before the horizon. What only such a compaction drops is checked against cells outside its input
 *       (memstore, later files) unless there are none ({@link RowGc}).</li>
 *   <li>Flush: only versions of aborted writers go. A flush hands its new file to scanners already open (HBase
 *       replaces their memstore snapshot with it), and a scanner opened before its transaction expired would read
 *       the flushed file: it must hold everything such a snapshot can see. Aborted versions are seen by none.
 *       Compactions never change the files of an open scanner.</li>
 *   <li>A table made transactional after it was written ({@link ConvertedTable}): its pre-switch cells are committed
 *       ({@link PreTransactionalCells}), so the newest one below the horizon is kept like any committed version.</li>
 *   <li>After either: the invalid markers of the invalidated writers it dropped go once below the commit-point
 *       horizon ({@link InvalidMarkerJanitor}).</li>
 * </ul>
 */
final class TransactionalGc {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionalGc.class);

    private final RegionCoprocessorEnvironment env;
    private final Region region;
    private final String commitTableName;
    private final GcConfig config;
    private final RegionCommitCellReader regionCells;
    private final PreTransactionalCells preTransactional;
    /** The scanner of each compaction in progress, for its end ({@link #afterCompaction}); weak: failed ones vanish. */
    private final Map<CompactionRequest, GcScanner> running = Collections.synchronizedMap(new WeakHashMap<>());
    /** The scanner of each store's flush in progress (one at a time per store), for its end ({@link #afterFlush}). */
    private final Map<Store, GcScanner> flushing = new ConcurrentHashMap<>();
    private static final int MAX_DISAGREEMENTS = 3;
    /** Compactions in a row whose two passes over an oversized row disagreed ({@link #disagreed}). */
    private final java.util.concurrent.atomic.AtomicInteger disagreements = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean streamingDisabled;

    TransactionalGc(RegionCoprocessorEnvironment env) {
        this.env = env;
        this.region = env.getRegion();
        this.commitTableName = TxnClientConfig.from(env.getConfiguration()::get).commitTable();
        this.config = GcConfig.from(env.getConfiguration()::get);
        this.regionCells = new RegionCommitCellReader(region, env.getConnection());
        this.preTransactional = ConvertedTable.rule(region.getTableDescriptor());
    }

    InternalScanner forFlush(Store store, InternalScanner scanner) throws IOException {
        Horizon horizon = GcHorizon.current();
        if (!horizon.isKnown()) {
            return scanner;
        }
        // FamilyGc below Long.MIN_VALUE: nothing is settled, only aborted versions go (see the class comment).
        GcScanner gc = scanner(store, scanner, horizon, new RowGc(Long.MIN_VALUE, Long.MIN_VALUE, false,
                preTransactional), RowGc.OutsideInput.NONE, "flush", null);
        flushing.put(store, gc);
        return gc;
    }

    void afterFlush(Store store) {
        GcScanner gc = flushing.remove(store);
        if (gc != null) {
            finished(store, gc);
        }
    }

    InternalScanner forCompaction(Store store, InternalScanner scanner, CompactionRequest request)
            throws IOException {
        Horizon horizon = GcHorizon.current(); // before looking at the store: see RowGc
        if (!horizon.isKnown()) {
            return scanner;
        }
        boolean major = request.isAllFiles();
        RowGc.OutsideInput outside = major && !storeIsInInput(store, request) ? this::hasDataCellsOutside
                : RowGc.OutsideInput.NONE;
        long expiredBelow = expiredBelow(store.getColumnFamilyDescriptor(), horizon);
        GcScanner.Streaming streaming = streamingDisabled || config.streamMaxCells() == 0
                || !(store instanceof HStore hstore) ? null
                : new GcScanner.Streaming(new StreamedRowGc(horizon.gc(), expiredBelow, major,
                        preTransactional),
                        new StoreCompactionInput(hstore, request, hstore.getSmallestReadPoint()),
                        config.streamMaxCells(), this::disagreed);
        GcScanner gc = scanner(store, scanner, horizon, new RowGc(horizon.gc(), expiredBelow, major,
                preTransactional), outside, major ? "major compaction" : "minor compaction", streaming);
        running.put(request, gc);
        return gc;
    }

    void afterCompaction(Store store, CompactionRequest request) {
        GcScanner gc = running.remove(request);
        if (gc != null) {
            if (gc.rowsStreamed() > 0) {
                disagreements.set(0);
            }
            finished(store, gc);
        }
    }

    /** Hands the markers of the invalidated writers it dropped to the janitor (they go below the horizon). */
    private void finished(Store store, GcScanner gc) {
        LOG.debug("GC of {}/{}: {} cells in, {} out, {} rows in two passes", region.getRegionInfo().getEncodedName(),
                store.getColumnFamilyName(), gc.cellsIn(), gc.cellsOut(), gc.rowsStreamed());
        Set<Long> invalidated = gc.droppedInvalidated();
        if (!invalidated.isEmpty()) {
            try {
                InvalidMarkerJanitor.shared().offer(GcCommitTable.of(env, commitTableName), invalidated,
                        GcHorizon.current().commitPointSafe());
            } catch (IOException | RuntimeException e) {
                LOG.warn("GC of {}: the invalid markers of {} writers stay ({})",
                        region.getRegionInfo().getEncodedName(), invalidated.size(), e.toString());
            }
        }
    }

    /**
     * The two passes of a streamed row disagreed (the compaction failed; a later one retries). A read point that moved
     * between the two scanners' openings explains one; after {@link #MAX_DISAGREEMENTS} in a row, this region's
     * compactions write oversized rows unchanged, as before streaming existed, until the region reopens.
     */
    private void disagreed(IOException cause) {
        int count = disagreements.incrementAndGet();
        if (count >= MAX_DISAGREEMENTS) {
            streamingDisabled = true;
        }
        LOG.error("{} ({} in a row{})", cause.getMessage(), count, streamingDisabled
                ? "; oversized rows of this region are written unchanged from now on, until it reopens" : "");
    }

    private GcScanner scanner(Store store, InternalScanner scanner, Horizon horizon, RowGc rowGc,
                              RowGc.OutsideInput outside, String what, GcScanner.Streaming streaming)
            throws IOException {
        String where = what + " of " + region.getRegionInfo().getEncodedName() + "/" + store.getColumnFamilyName()
                + " (" + region.getTableDescriptor().getTableName() + ")";
        CommitTable commitTable = GcCommitTable.of(env, commitTableName);
        return new GcScanner(scanner, rowGc, new GcStatusResolver(horizon, commitTable, regionCells, where,
                preTransactional), outside, config.rowMaxCells(), where, streaming);
    }

    /**
     * Commit timestamps below this have outlived the family's TTL (seconds; HBase's FOREVER: none): their
     * millisecond part is more than the TTL older than the horizon's.
     */
    static long expiredBelow(ColumnFamilyDescriptor family, Horizon horizon) {
        return FamilyTtl.expiredBelow(family, horizon.gc());
    }

    /**
     * True when the compaction's input holds every cell of the store: an empty memstore and no file beyond the input.
     * Asked after the horizon was read: cells written since belong to writers live at the horizon.
     */
    static boolean storeIsInInput(Store store, CompactionRequest request) {
        if (store.getMemStoreSize().getDataSize() > 0 || store.getSnapshotSize().getDataSize() > 0) {
            return false;
        }
        Collection<? extends StoreFile> input = request.getFiles();
        for (StoreFile file : store.getStorefiles()) {
            if (!input.contains(file)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The region (memstore and every file, no region coprocessors) holds a data cell of the row below {@code below}
     * that is not in the input. Read in batches and stopped at the first such cell: the row may be one of millions
     * of cells.
     */
    private boolean hasDataCellsOutside(byte[] row, byte[] family, long below, Set<RowGc.CellKey> input) {
        if (below <= 0) {
            return false;
        }
        if (!(region instanceof HRegion hregion)) {
            return true;
        }
        Scan scan = new Scan().withStartRow(row).withStopRow(row, true).addFamily(family).readAllVersions()
                .setBatch(1_024);
        try {
            scan.setTimeRange(0, below);
            try (RegionScanner scanner = hregion.getScanner(scan)) {
                List<Cell> cells = new ArrayList<>();
                boolean more;
                do {
                    cells.clear();
                    more = scanner.next(cells);
                    for (Cell cell : cells) {
                        if (!OnDiskLayout.isCommitCell(cell) && !input.contains(
                                new RowGc.CellKey(CellUtil.cloneQualifier(cell), cell.getTimestamp()))) {
                            return true;
                        }
                    }
                } while (more && !cells.isEmpty());
                return false;
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("GC of {}: cannot read row cells outside the compaction; its markers stay",
                    region.getRegionInfo().getEncodedName(), e);
            return true;
        }
    }
}
