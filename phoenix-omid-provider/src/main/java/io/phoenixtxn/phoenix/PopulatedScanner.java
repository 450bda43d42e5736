package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

/**
 * What Phoenix's own population pass (an UPSERT SELECT over the data table) reads once the region servers have
 * populated the index at the fence ({@code io.phoenixtxn.index.IndexPopulation}): no rows, so it writes nothing and
 * keeps nothing on the client. Phoenix then reports 0 rows for the CREATE INDEX; the population's progress (log,
 * JMX) has the counts.
 */
final class PopulatedScanner implements ResultScanner {
    PopulatedScanner() {
    }


    @Override
    public Result next() {
        return null;
    }

    @Override
    public void close() {
    }

    @Override
    public boolean renewLease() {
        return false;
    }

    /** Phoenix reads the metrics of every scan it ends when its request metrics or query log are on. */
    @Override
    public ScanMetrics getScanMetrics() {
        return new ScanMetrics();
    }
}
