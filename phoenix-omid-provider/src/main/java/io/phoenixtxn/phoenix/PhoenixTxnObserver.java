package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.coprocessor.SnapshotReadObserver;
import io.phoenixtxn.index.PopulatingRegionScanner;
import io.phoenixtxn.index.PopulationPacer;
import io.phoenixtxn.index.PopulationScan;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.OperationWithAttributes;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.RegionScanner;

/**
 * The region observer Phoenix installs on transactional tables and indexes ({@code getCoprocessorClassName()}):
 * snapshot reads, plus taking the OMID slot on the region server when the class is first loaded there, so
 * server-side Phoenix code (index builds, decoded transaction state) reaches our provider.
 */
public class PhoenixTxnObserver extends SnapshotReadObserver {
    static {
        ProviderSlot.install();
    }

    /**
     * Reads and writes other than a population's own are work that populations running in this process yield to
     * ({@link PopulationPacer}).
     */
    @Override
    public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Scan scan) throws IOException {
        noteForeground(scan);
        super.preScannerOpen(ctx, scan);
    }

    @Override
    public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> ctx, Get get, List<Cell> result)
            throws IOException {
        noteForeground(get);
        super.preGetOp(ctx, get, result);
    }

    @Override
    public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> ctx,
                               MiniBatchOperationInProgress<Mutation> miniBatchOp) throws IOException {
        // a population's batches hold its index rows only; commit cells alone (post-commits, the healing a
        // population's own read may trigger) come with or after the writes that already counted
        if (miniBatchOp.size() > 0 && PopulationPacer.shared().populationsRunning()
                && !onlyCommitCells(miniBatchOp.getOperation(0))) {
            noteForeground(miniBatchOp.getOperation(0));
        }
        super.preBatchMutate(ctx, miniBatchOp);
    }

    @Override
    public Result preIncrement(ObserverContext<RegionCoprocessorEnvironment> ctx, Increment increment)
            throws IOException {
        noteForeground(increment); // fast-path writes
        return super.preIncrement(ctx, increment);
    }

    private static boolean onlyCommitCells(Mutation mutation) {
        for (List<Cell> cells : mutation.getFamilyCellMap().values()) {
            for (Cell cell : cells) {
                if (!OnDiskLayout.isCommitCell(cell)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Costs one volatile read unless a population runs in this process (every read and write comes here). */
    private static void noteForeground(OperationWithAttributes operation) {
        if (PopulationPacer.shared().populationsRunning() && !PopulationScan.isPopulationWork(operation)) {
            PopulationPacer.shared().foregroundSeen();
        }
    }

    /** A population scan of an online CREATE INDEX is answered by writing index rows (design.md sec. 4.4). */
    @Override
    public RegionScanner postScannerOpen(ObserverContext<RegionCoprocessorEnvironment> ctx, Scan scan,
                                         RegionScanner scanner) throws IOException {
        RegionScanner opened = super.postScannerOpen(ctx, scan, scanner);
        return PopulatingRegionScanner.wrapIfPopulation(ctx.getEnvironment(), scan, opened,
                scan.getAttribute(SnapshotAttributes.SNAPSHOT) != null);
    }

    static String className() {
        return ObserverNames.PHOENIX_OBSERVER;
    }
}
