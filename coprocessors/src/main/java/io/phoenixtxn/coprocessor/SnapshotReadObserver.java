package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.coprocessor.fastpath.FastPathRegion;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.SnapshotCodec;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.OperationWithAttributes;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.regionserver.FlushLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.StoreFile;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Region observer installed on every transactional table and index. A get or scan that carries a snapshot
 * ({@link SnapshotAttributes#SNAPSHOT}) reads all versions through {@link SnapshotReadFilter}, so the region
 * returns only what the snapshot sees, before any later observer (Phoenix's run at a higher priority number) looks
 * at the cells. A scan of Phoenix's MapReduce input formats carries a read timestamp instead and is read as a snapshot
 * at it ({@link #PHOENIX_MAPREDUCE_READ_TIMESTAMP}). Other reads without a snapshot pass through unfiltered (HBase
 * tools).
 *
 * <p>Every store scanner of the region (reads, flushes, compactions) keeps what {@link TransactionalStoreRetention}
 * says a transactional store must keep, whatever the family's VERSIONS and TTL (reported once at region open when
 * they say otherwise). Snapshot reads and tentative writes of a client that commits to another commit table than
 * this region server's are refused ({@link CommitTableCheck}), and so are snapshot reads older than the region
 * server's GC horizon ({@link SnapshotAge}). Flushes and compactions are garbage-collected ({@link TransactionalGc})
 * by this observer only where the table does not carry a GC observer ({@link ObserverNames#GC}): tables created
 * before GC existed carry this observer alone. The fast path (single-row transactions without the TM, VLDB'18
 * sec. 4) lives in {@link FastPathRegion}; the hooks here only hand over to it. A table made transactional after it
 * was written ({@link ConvertedTable}) reads its old cells as committed ({@link PreTransactionalCells}) and refuses
 * non-transactional writes ({@link NonTransactionalWriteCheck}).
 */
public class SnapshotReadObserver implements RegionCoprocessor, RegionObserver {
    /**
     * Phoenix's scan attribute for the read timestamp of a MapReduce job on a transactional table
     * ({@code BaseScannerRegionObserverConstants.TX_SCN}; set by its input formats from the job's TX_SCN setting).
     */
    public static final String PHOENIX_MAPREDUCE_READ_TIMESTAMP = "_TxScn";

    private final TransactionalStoreRetention retention = new TransactionalStoreRetention();
    private volatile CommitResolver resolver;
    private volatile HBaseCommitTable commitTable;
    private volatile CommitTableCheck commitTableCheck;
    private volatile TableName table;
    private volatile FastPathRegion fastPath;
    private volatile PreTransactionalCells preTransactional = PreTransactionalCells.NONE;
    private volatile NonTransactionalWriteCheck nonTransactionalWrites;
    /** Null where a GC observer of the table collects its stores. */
    private volatile TransactionalGc gc;

    @Override
    public void start(CoprocessorEnvironment env) throws IOException {
        TxnClientConfig config = TxnClientConfig.from(env.getConfiguration()::get);
        RegionServerTxnMetrics.ensureRegistered();
        RegionServerTm.configure(env.getConfiguration());
        GcHorizon.configure(env.getConfiguration());
        RegionCoprocessorEnvironment regionEnv = (RegionCoprocessorEnvironment) env;
        commitTable = new HBaseCommitTable(regionEnv.getConnection(), TableName.valueOf(config.commitTable()));
        resolver = new CommitResolver(commitTable, config.pendingWaitMs(), RegionServerTm::current,
                () -> GcHorizon.current().commitPointSafe());
        commitTableCheck = new CommitTableCheck(config.commitTable());
        TableDescriptor descriptor = regionEnv.getRegion().getTableDescriptor();
        table = descriptor.getTableName();
        preTransactional = ConvertedTable.rule(descriptor);
        nonTransactionalWrites = new NonTransactionalWriteCheck(preTransactional, table);
        gc = carriesGcObserver(descriptor) ? null : new TransactionalGc(regionEnv);
        fastPath = FastPathRegion.start(regionEnv, commitTable, RegionServerTm::current, this::verifyCommitTable,
                preTransactional);
        OverriddenFamilySettings.report(descriptor, retention);
    }

    /** The fast path of this region (tests, monitoring: its server's version clock). */
    public FastPathRegion fastPath() {
        return fastPath;
    }

    /** Whether this observer garbage-collects its region's stores (the table carries no GC observer). */
    public boolean collectsGarbage() {
        return gc != null;
    }

    static boolean carriesGcObserver(TableDescriptor descriptor) {
        for (String name : ObserverNames.GC) {
            if (descriptor.hasCoprocessor(name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
    }

    @Override
    public void postOpen(ObserverContext<RegionCoprocessorEnvironment> ctx) {
        fastPath.regionOpened();
    }

    @Override
    public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> ctx, Get get, List<Cell> result)
            throws IOException {
        if (fastPath.serveRead(ctx, get, result)) {
            return;
        }
        Snapshot snapshot = snapshotOf(get);
        if (snapshot != null) {
            commitTableCheck.verify(get, "get", table);
            SnapshotAge.check(snapshot, GcHorizon.current(), "get", table);
            fastPath.beforeSnapshotRead(snapshot, get.getRow());
            get.readAllVersions();
            ReadColumns.widen(get.getFamilyMap());
            get.setFilter(filterFor(ctx, snapshot, get.getFilter()));
        }
    }

    @Override
    public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Scan scan) throws IOException {
        Snapshot snapshot = snapshotOf(scan);
        if (snapshot != null) {
            commitTableCheck.verify(scan, "scan", table);
            checkAge(snapshot, scan);
            fastPath.beforeSnapshotRead(snapshot, null);
            scan.readAllVersions();
            ReadColumns.widen(scan.getFamilyMap());
            scan.setFilter(filterFor(ctx, snapshot, scan.getFilter()));
        }
    }

    /** The get has read: its store scanners were bound to files before any compaction above its snapshot began. */
    @Override
    public void postGetOp(ObserverContext<RegionCoprocessorEnvironment> ctx, Get get, List<Cell> result)
            throws IOException {
        Snapshot snapshot = snapshotOf(get);
        if (snapshot != null) {
            SnapshotAge.check(snapshot, GcHorizon.current(), "get", table);
        }
    }

    /** The scanner is open, bound to its files: from now on only flushes change them (see SnapshotAge). */
    @Override
    public RegionScanner postScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Scan scan,
                                         RegionScanner scanner) throws IOException {
        Snapshot snapshot = snapshotOf(scan);
        if (snapshot != null) {
            try {
                checkAge(snapshot, scan);
            } catch (IOException e) {
                scanner.close(); // HBase does not close a scanner whose opening failed here
                throw e;
            }
            if (scan.getAttribute(SnapshotAttributes.SNAPSHOT) == null) {
                DoNotRetryIOException tooOld = SnapshotAge.mapReduceReadTooOld(snapshot, GcHorizon.current(), table);
                if (tooOld != null) {
                    return new TooOldMapReduceScanner(scanner, tooOld);
                }
            }
        }
        return scanner;
    }

    /** HFile bulk loads are admitted from transactional bulk loads only ({@link BulkLoadAdmission}). */
    @Override
    public void preBulkLoadHFile(ObserverContext<RegionCoprocessorEnvironment> ctx,
                                 List<org.apache.hadoop.hbase.util.Pair<byte[], String>> familyPaths)
            throws IOException {
        BulkLoadAdmission.admit(table, familyPaths, ctx.getEnvironment().getConfiguration(), commitTable,
                GcHorizon.current().commitPointSafe());
    }

    @Override
    public void prePut(ObserverContext<RegionCoprocessorEnvironment> ctx, Put put, WALEdit edit) throws IOException {
        commitTableCheck.verify(put, "put", table);
    }

    @Override
    public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> ctx,
                               MiniBatchOperationInProgress<Mutation> miniBatchOp) throws IOException {
        nonTransactionalWrites.verify(miniBatchOp);
        fastPath.beforeBatch(miniBatchOp);
    }

    /**
     * A Delete without a timestamp of a column's newest version: on a converted table refused before HBase gives it
     * that version, which preBatchMutate could not tell from a transaction's ({@link NonTransactionalWriteCheck}).
     * Deprecated in HBase 2 without a replacement; it is the only hook before HBase picks the version.
     */
    @Override
    @SuppressWarnings("deprecation")
    public void prePrepareTimeStampForDeleteVersion(ObserverContext<RegionCoprocessorEnvironment> ctx,
                                                    Mutation mutation, Cell cell, byte[] byteNow, Get get)
            throws IOException {
        nonTransactionalWrites.verifyLatestVersionDelete(cell);
    }

    @Override
    public Result preIncrement(ObserverContext<RegionCoprocessorEnvironment> ctx, Increment increment)
            throws IOException {
        fastPath.beforeWrite(increment); // before the row lock: the bootstrap wait holds back no other writer
        return null;
    }

    @Override
    public List<Pair<Cell, Cell>> postIncrementBeforeWAL(ObserverContext<RegionCoprocessorEnvironment> ctx,
                                                         Mutation mutation, List<Pair<Cell, Cell>> cellPairs)
            throws IOException {
        return fastPath.write(mutation, cellPairs);
    }

    @Override
    public Result postIncrement(ObserverContext<RegionCoprocessorEnvironment> ctx, Increment increment,
                                Result result, WALEdit edit) throws IOException {
        return fastPath.answer(increment, result);
    }

    @Override
    public void postBatchMutateIndispensably(ObserverContext<RegionCoprocessorEnvironment> ctx,
                                             MiniBatchOperationInProgress<Mutation> miniBatchOp, boolean success) {
        fastPath.afterBatch();
    }

    @Override
    public void preStoreScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                    ScanOptions options) {
        retention.forRead(options);
    }

    @Override
    public void preFlushScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                    ScanOptions options, FlushLifeCycleTracker tracker) {
        retention.forFlush(options);
    }

    @Override
    public void preMemStoreCompactionCompactScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx,
                                                        Store store, ScanOptions options) {
        retention.forFlush(options);
    }

    @Override
    public void preCompactScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                      ScanType scanType, ScanOptions options, CompactionLifeCycleTracker tracker,
                                      CompactionRequest request) {
        retention.forCompaction(scanType, options);
    }

    /**
     * A transaction's snapshot must be above the GC horizon. A read at Phoenix's MapReduce timestamp is refused at its
     * first row instead ({@link TooOldMapReduceScanner}, in postScannerOpen): Phoenix's own IndexTool reads at the
     * index's creation millisecond, which no transaction holds, and must keep completing on an empty table.
     */
    private void checkAge(Snapshot snapshot, Scan scan) throws DoNotRetryIOException {
        if (scan.getAttribute(SnapshotAttributes.SNAPSHOT) != null) {
            SnapshotAge.check(snapshot, GcHorizon.current(), "scan", table);
        }
    }

    private void verifyCommitTable(OperationWithAttributes op, String what) throws IOException {
        commitTableCheck.verify(op, what, table);
    }

    @Override
    public InternalScanner preFlush(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                    InternalScanner scanner, FlushLifeCycleTracker tracker) throws IOException {
        TransactionalGc collector = gc;
        return collector == null ? scanner : collector.forFlush(store, scanner);
    }

    @Override
    public void postFlush(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store, StoreFile resultFile,
                          FlushLifeCycleTracker tracker) {
        TransactionalGc collector = gc;
        if (collector != null) {
            collector.afterFlush(store);
        }
    }

    @Override
    public InternalScanner preCompact(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                      InternalScanner scanner, ScanType scanType, CompactionLifeCycleTracker tracker,
                                      CompactionRequest request) throws IOException {
        TransactionalGc collector = gc;
        return collector == null ? scanner : collector.forCompaction(store, scanner, request);
    }

    @Override
    public void postCompact(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store, StoreFile resultFile,
                            CompactionLifeCycleTracker tracker, CompactionRequest request) {
        TransactionalGc collector = gc;
        if (collector != null) {
            collector.afterCompaction(store, request);
        }
    }

    private Filter filterFor(ObserverContext<RegionCoprocessorEnvironment> ctx, Snapshot snapshot, Filter user) {
        if (user instanceof SnapshotReadFilter) {
            return user; // already wrapped (a scan re-opened on the same object)
        }
        Region region = ctx.getEnvironment().getRegion();
        return new SnapshotReadFilter(snapshot, resolver, new RegionCommitCellReader(region,
                ctx.getEnvironment().getConnection()), user,
                new FamilyTtl.ForReader(region.getTableDescriptor(), snapshot.txId()), preTransactional);
    }

    private static Snapshot snapshotOf(OperationWithAttributes op) throws IOException {
        byte[] encoded = op.getAttribute(SnapshotAttributes.SNAPSHOT);
        if (encoded == null) {
            byte[] mapReduceRead = op.getAttribute(PHOENIX_MAPREDUCE_READ_TIMESTAMP);
            if (mapReduceRead != null) {
                return mapReduceSnapshot(mapReduceRead);
            }
            if (op.getAttribute(SnapshotAttributes.OMID_TRANSACTION) != null) {
                throw new DoNotRetryIOException("An Apache Omid client read a phoenix-txn table. Put the"
                        + " phoenix-omid-provider jar on the client's classpath (it takes Phoenix's OMID slot) and"
                        + " remove the Omid client; one transaction provider serves a cluster.");
            }
            return null;
        }
        try {
            return SnapshotCodec.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new DoNotRetryIOException("Bad " + SnapshotAttributes.SNAPSHOT + " attribute: " + e.getMessage(), e);
        }
    }

    /**
     * The snapshot of a Phoenix MapReduce read: its input format cannot give the scan a transaction (the SELECT's
     * connection is closed before the record reader opens), so it marks the scan with its read timestamp instead.
     * IndexTool's mapper reads the data table so, at the fence of our build (TransactionalIndexTool); read as a
     * snapshot at that timestamp, the scan sees exactly the transactions committed before it, never a pending or
     * aborted one's cells.
     */
    private static Snapshot mapReduceSnapshot(byte[] timestamp) throws DoNotRetryIOException {
        if (timestamp.length != Bytes.SIZEOF_LONG || Bytes.toLong(timestamp) <= 0) {
            throw new DoNotRetryIOException("Bad " + PHOENIX_MAPREDUCE_READ_TIMESTAMP + " attribute (Phoenix's"
                    + " MapReduce read timestamp): " + Bytes.toStringBinary(timestamp));
        }
        return Snapshot.begin(Bytes.toLong(timestamp));
    }

    /** Keeps the client's observer-name constant honest. */
    static String className() {
        return ObserverNames.SNAPSHOT_READ_OBSERVER;
    }
}
