package io.phoenixtxn.index;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.phoenixtxn.client.TransactionalTable;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.phoenix.hbase.index.util.GenericKeyValueBuilder;
import org.apache.phoenix.index.IndexMaintainer;
import org.apache.phoenix.util.MetaDataUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Region-server side of a population ({@link PopulationScan}): wraps the region scanner of a transactional scan,
 * which already sees exactly the population's snapshot (the snapshot read filter runs inside it, pending writers
 * included), turns each visible row into its index rows with Phoenix's own {@link IndexMaintainer} (the code
 * Phoenix's transactional index maintenance uses), marks them committed at the population's version and writes them
 * to the index tables in batches of a bounded size. Each call returns one page: the index rows of the page are
 * written (flushed) before its progress cell is returned, so a scanner resumed after the last returned row misses nothing,
 * and rows written again by a resumed scanner are the same cells (idempotent).
 */
public final class PopulatingRegionScanner implements RegionScanner {
    private static final Logger LOG = LoggerFactory.getLogger(PopulatingRegionScanner.class);
    /** Where index rows go: the region server's connection in production, lists in unit tests. */
    interface IndexRowSink extends java.io.Closeable {
        /** Hands rows over; they may still be on their way when this returns. */
        void write(TableName indexTable, List<Put> rows) throws IOException;

        /** Returns once every row handed over is written (or throws). */
        default void flush() throws IOException {
        }

        /** Releases the writer (the scanner closed). */
        @Override
        default void close() throws IOException {
        }
    }

    /** The index rows of one visible data row, uncommitted (versions are set here). */
    interface IndexRowBuilder {
        void build(byte[] dataRow, List<Cell> visibleCells, IndexRowConsumer out) throws IOException;
    }

    /** Receives one index row for one index table. */
    interface IndexRowConsumer {
        void accept(TableName indexTable, Put indexRow);
    }

    /**
     * How long one batch of index rows may take to write: well below the client's scanner timeout, so a page
     * whose client gave up does not hold its handler for HBase's default operation timeout (20 minutes).
     */
    static final int WRITE_TIMEOUT_MS = 30_000;
    /**
     * The index rows a population buffers per index table before HBase sends them in the background (a batch of
     * 1,000 rows of a few columns with their commit cells is a few hundred KB): one send in flight while it scans on.
     */
    static final long WRITE_BUFFER_BYTES = 1L << 20;

    private final RegionScanner inner;
    private final IndexRowBuilder builder;
    private final IndexRowSink sink;
    private final long version;
    private final int pageRows;
    private final long pageNanos;
    private final int batchRows;
    private final PopulationPacer pacer;
    private final Map<TableName, List<Put>> pending = new LinkedHashMap<>();
    private int pendingRows;
    private boolean exhausted;
    private long pausedNanos;
    private long pauses;

    PopulatingRegionScanner(RegionScanner inner, IndexRowBuilder builder, IndexRowSink sink, long version,
                            int pageRows, int pageMillis, int batchRows, PopulationPacer pacer) {
        this.inner = inner;
        this.pacer = pacer;
        this.builder = builder;
        this.sink = sink;
        this.version = version;
        this.pageRows = Math.max(1, pageRows);
        this.pageNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, pageMillis));
        this.batchRows = Math.max(1, batchRows);
    }

    /**
     * The scanner a region observer returns from {@code postScannerOpen}: a population scanner for a population scan
     * that reads at a snapshot, {@code scanner} itself for every other scan.
     */
    public static RegionScanner wrapIfPopulation(RegionCoprocessorEnvironment env, Scan scan, RegionScanner scanner,
                                                 boolean readsAtSnapshot) throws IOException {
        if (!PopulationScan.isPopulation(scan)) {
            return scanner;
        }
        if (!readsAtSnapshot) {
            scanner.close();
            throw new DoNotRetryIOException("An index population scan of "
                    + env.getRegionInfo().getTable() + " carries no snapshot: populations read at their fence");
        }
        try {
            List<IndexMaintainer> maintainers = IndexMaintainer.deserialize(
                    scan.getAttribute(PopulationScan.MAINTAINERS), true);
            TableName dataTable = env.getRegionInfo().getTable();
            // The region server's own connection, at normal priority: measured 1.37x the copy's build at 1M rows,
            // against 1.57x through Phoenix's index-writer connection, whose priority sends the writes to the
            // region servers' few priority handlers unless they run Phoenix's RPC scheduler (performance.md).
            Connection writer = env.getConnection();
            for (IndexMaintainer maintainer : maintainers) {
                checkIsIndexOf(writer, TableName.valueOf(maintainer.getIndexTableName()), dataTable);
            }
            IndexRowSink sink = new BufferedIndexRowSink(writer, WRITE_BUFFER_BYTES, WRITE_TIMEOUT_MS);
            long version = PopulationScan.version(scan);
            PopulationPacer pacer = PopulationPacer.shared();
            pacer.configure(env.getConfiguration()::get);
            return new PopulatingRegionScanner(scanner, phoenixIndexRows(maintainers, version), sink, version,
                    PopulationScan.pageRows(scan), PopulationScan.pageMillis(scan), PopulationScan.batchRows(scan),
                    pacer);
        } catch (IOException | RuntimeException e) {
            scanner.close(); // HBase does not close a scanner whose opening failed in postScannerOpen
            throw e;
        }
    }

    /**
     * A population writes with the region server's credentials: only to tables Phoenix created as indexes of the
     * scanned table (their descriptor names it, {@code DATA_TABLE_NAME}), whatever the scan's attributes say.
     */
    private static void checkIsIndexOf(Connection connection, TableName index, TableName dataTable)
            throws IOException {
        String named;
        try (Admin admin = connection.getAdmin()) {
            named = admin.getDescriptor(index).getValue(MetaDataUtil.DATA_TABLE_NAME_PROP_NAME);
        }
        if (!dataTable.getNameAsString().equals(named)) {
            throw new DoNotRetryIOException("An index population scan of " + dataTable + " names " + index
                    + ", which is not an index of it (its " + MetaDataUtil.DATA_TABLE_NAME_PROP_NAME + " is " + named
                    + ")");
        }
    }

    /**
     * Index rows as Phoenix's transactional index maintenance builds them ({@code PhoenixIndexCodec}): the same
     * {@link IndexMaintainer#buildUpdateMutation}, not verified (transactional indexes have no verify step).
     */
    static IndexRowBuilder phoenixIndexRows(List<IndexMaintainer> maintainers, long version) {
        List<TableName> tables = new ArrayList<>();
        for (IndexMaintainer maintainer : maintainers) {
            tables.add(TableName.valueOf(maintainer.getIndexTableName()));
        }
        return (dataRow, cells, out) -> {
            ImmutableBytesWritable rowKey = new ImmutableBytesWritable(dataRow);
            for (int i = 0; i < maintainers.size(); i++) {
                IndexMaintainer maintainer = maintainers.get(i);
                Put put = maintainer.buildUpdateMutation(GenericKeyValueBuilder.INSTANCE,
                        maintainer.createGetterFromKeyValues(dataRow, cells), rowKey, version, null, null, false);
                if (put != null) {
                    out.accept(tables.get(i), put);
                }
            }
        };
    }

    @Override
    public boolean nextRaw(List<Cell> result) throws IOException {
        if (exhausted) {
            return false;
        }
        pacer.enter();
        try {
            return page(result);
        } finally {
            pacer.leave();
        }
    }

    private boolean page(List<Cell> result) throws IOException {
        long deadline = System.nanoTime() + pageNanos;
        long scanned = 0;
        long written = 0;
        byte[] lastRow = null;
        List<Cell> row = new ArrayList<>();
        boolean more;
        long workStart = pacer.now();
        do {
            row.clear();
            more = inner.nextRaw(row);
            if (!row.isEmpty()) {
                lastRow = CellUtil.cloneRow(row.get(0));
                scanned++;
                written += indexRows(lastRow, row);
                if (pendingRows >= batchRows) {
                    handOver();
                    workStart = yieldAfter(workStart);
                }
            }
        } while (more && (lastRow == null || (scanned < pageRows && System.nanoTime() - deadline < 0)));
        handOver();
        sink.flush(); // before the progress cell: a resumed scanner starts after lastRow
        yieldAfter(workStart);
        if (lastRow != null) {
            result.add(PopulationScan.progressCell(lastRow, scanned, written));
        }
        exhausted = !more;
        return more;
    }

    /** Pauses for the work since {@code workStart} if other work runs here ({@link PopulationPacer}). */
    private long yieldAfter(long workStart) throws IOException {
        long paused = pacer.afterWork(pacer.now() - workStart);
        if (paused > 0) {
            pausedNanos += paused;
            pauses++;
        }
        return pacer.now();
    }

    private int indexRows(byte[] dataRow, List<Cell> cells) throws IOException {
        int before = pendingRows;
        builder.build(dataRow, cells, (table, put) -> {
            Put committed = TransactionalTable.markCommitted(put, version, version);
            PopulationScan.markWrite(committed);
            pending.computeIfAbsent(table, t -> new ArrayList<>()).add(committed);
            pendingRows++;
        });
        return pendingRows - before;
    }

    private void handOver() throws IOException {
        if (pendingRows > 0) {
            IndexBuildHooks.current().beforeRegionBatchWrite(version, pendingRows);
        }
        for (Map.Entry<TableName, List<Put>> batch : pending.entrySet()) {
            if (!batch.getValue().isEmpty()) {
                sink.write(batch.getKey(), batch.getValue());
                batch.setValue(new ArrayList<>());
            }
        }
        pendingRows = 0;
    }

    @Override
    public boolean nextRaw(List<Cell> result, ScannerContext scannerContext) throws IOException {
        return nextRaw(result); // pages are bounded by rows and time here, not by HBase's size limits
    }

    @Override
    public boolean next(List<Cell> result) throws IOException {
        return nextRaw(result);
    }

    @Override
    public boolean next(List<Cell> result, ScannerContext scannerContext) throws IOException {
        return nextRaw(result);
    }

    @Override
    public RegionInfo getRegionInfo() {
        return inner.getRegionInfo();
    }

    /**
     * The inner scanner's answer, never "exhausted": HBase ends the client's whole scan, not only this region, when
     * a call returns no cells and the filter is done, and a region's last call returns no cells whenever its last
     * rows are invisible at the snapshot; the scan must go on to the next region of its range (after a split).
     */
    @Override
    public boolean isFilterDone() throws IOException {
        return inner.isFilterDone();
    }

    @Override
    public boolean reseek(byte[] row) throws IOException {
        throw new DoNotRetryIOException("A population scanner cannot reseek");
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
        try {
            sink.close();
        } catch (IOException | RuntimeException e) {
            // Only rows of a page that failed can be unsent here (each reported page was flushed first): that page
            // was not reported done and is scanned again.
            LOG.warn("Index population of {} at {}: its index-row writer failed to close ({})",
                    inner.getRegionInfo().getRegionNameAsString(), version, e.toString());
        }
        if (pauses > 0) {
            LOG.info("Index population of {} at {} yielded to other work on this server {} times, {} ms in all",
                    inner.getRegionInfo().getRegionNameAsString(), version, pauses,
                    TimeUnit.NANOSECONDS.toMillis(pausedNanos));
        }
        inner.close();
    }
}
