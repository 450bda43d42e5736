package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.ObserverNames;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.FlushLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.StoreFile;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;

import java.io.IOException;
import java.util.Optional;

/**
 * The compaction-time GC observer of a transactional table ({@link TransactionalGc}), next to the read observer
 * ({@link SnapshotReadObserver}), which then leaves GC to it: every store is collected exactly once. It also keeps
 * every version in the store scanners of flushes and compactions ({@link TransactionalStoreRetention}), as the read
 * observer does (the same settings twice change nothing), so HBase never prunes below what GC decides.
 */
public class TransactionalGcObserver implements RegionCoprocessor, RegionObserver {
    private final TransactionalStoreRetention retention = new TransactionalStoreRetention();
    private volatile TransactionalGc gc;

    @Override
    public void start(CoprocessorEnvironment env) throws IOException {
        RegionServerTxnMetrics.ensureRegistered();
        RegionServerTm.configure(env.getConfiguration());
        GcHorizon.configure(env.getConfiguration());
        gc = new TransactionalGc((RegionCoprocessorEnvironment) env);
    }

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
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

    @Override
    public InternalScanner preFlush(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                    InternalScanner scanner, FlushLifeCycleTracker tracker) throws IOException {
        return gc.forFlush(store, scanner);
    }

    @Override
    public void postFlush(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store, StoreFile resultFile,
                          FlushLifeCycleTracker tracker) {
        gc.afterFlush(store);
    }

    @Override
    public InternalScanner preCompact(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store,
                                      InternalScanner scanner, ScanType scanType, CompactionLifeCycleTracker tracker,
                                      CompactionRequest request) throws IOException {
        return gc.forCompaction(store, scanner, request);
    }

    @Override
    public void postCompact(ObserverContext<RegionCoprocessorEnvironment> ctx, Store store, StoreFile resultFile,
                            CompactionLifeCycleTracker tracker, CompactionRequest request) {
        gc.afterCompaction(store, request);
    }

    /** Keeps the client's observer-name constant honest. */
    static String className() {
        return ObserverNames.GC_OBSERVER;
    }
}
