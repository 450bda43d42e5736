package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.coprocessor.SnapshotReadObserver;
import io.phoenixtxn.index.PopulatingRegionScanner;
import java.io.IOException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
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
