package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitResolver;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.coprocessor.fastpath.FastPathRegion;
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
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.regionserver.FlushLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Region observer installed on every transactional table and index. A get or scan that carries a snapshot
 * ({@link SnapshotAttributes#SNAPSHOT}) reads all versions through {@link SnapshotReadFilter}, so the region
 * returns only what the snapshot sees, before any later observer (Phoenix's run at a higher priority number) looks
 * at the cells. Reads without a snapshot pass through unfiltered (HBase tools).
 *
 * <p>Every store scanner of the region (reads, flushes, compactions) keeps what {@link TransactionalStoreRetention}
 * says a transactional store must keep, whatever the family's VERSIONS and TTL (reported once at region open when
 * they say otherwise). Snapshot reads and tentative writes of a client that commits to another commit table than
 * this region server's are refused ({@link CommitTableCheck}). The fast path (single-row transactions without the
 * TM, VLDB'18 sec. 4) lives in {@link FastPathRegion}; the hooks here only hand over to it.
 */
public class SnapshotReadObserver implements RegionCoprocessor, RegionObserver {
    private final TransactionalStoreRetention retention = new TransactionalStoreRetention();
    private volatile CommitResolver resolver;
    private volatile CommitTableCheck commitTableCheck;
    private volatile TableName table;
    private volatile FastPathRegion fastPath;

    @Override
    public void start(CoprocessorEnvironment env) throws IOException {
        TxnClientConfig config = TxnClientConfig.from(env.getConfiguration()::get);
        RegionServerTm.configure(env.getConfiguration());
        RegionCoprocessorEnvironment regionEnv = (RegionCoprocessorEnvironment) env;
        HBaseCommitTable commitTable = new HBaseCommitTable(regionEnv.getConnection(),
                TableName.valueOf(config.commitTable()));
        resolver = new CommitResolver(commitTable, config.pendingWaitMs(), RegionServerTm::current);
        commitTableCheck = new CommitTableCheck(config.commitTable());
        table = regionEnv.getRegion().getTableDescriptor().getTableName();
        fastPath = FastPathRegion.start(regionEnv, commitTable, RegionServerTm::current, this::verifyCommitTable);
        OverriddenFamilySettings.report(regionEnv.getRegion().getTableDescriptor(), retention);
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
            fastPath.beforeSnapshotRead(snapshot, null);
            scan.readAllVersions();
            ReadColumns.widen(scan.getFamilyMap());
            scan.setFilter(filterFor(ctx, snapshot, scan.getFilter()));
        }
    }

    @Override
    public void prePut(ObserverContext<RegionCoprocessorEnvironment> ctx, Put put, WALEdit edit) throws IOException {
        commitTableCheck.verify(put, "put", table);
    }

    @Override
    public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> ctx,
                               MiniBatchOperationInProgress<Mutation> miniBatchOp) throws IOException {
        fastPath.beforeBatch(miniBatchOp);
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

    private void verifyCommitTable(OperationWithAttributes op, String what) throws IOException {
        commitTableCheck.verify(op, what, table);
    }

    private static TableName tableOf(ObserverContext<RegionCoprocessorEnvironment> ctx) {
        return ctx.getEnvironment().getRegion().getTableDescriptor().getTableName();
    }

    private Filter filterFor(ObserverContext<RegionCoprocessorEnvironment> ctx, Snapshot snapshot, Filter user) {
        if (user instanceof SnapshotReadFilter) {
            return user; // already wrapped (a scan re-opened on the same object)
        }
        return new SnapshotReadFilter(snapshot, resolver, new RegionCommitCellReader(ctx.getEnvironment().getRegion(),
                ctx.getEnvironment().getConnection()),
                user);
    }

    private static Snapshot snapshotOf(OperationWithAttributes op) throws IOException {
        byte[] encoded = op.getAttribute(SnapshotAttributes.SNAPSHOT);
        if (encoded == null) {
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

    /** Keeps the client's observer-name constant honest. */
    static String className() {
        return ObserverNames.SNAPSHOT_READ_OBSERVER;
    }
}
