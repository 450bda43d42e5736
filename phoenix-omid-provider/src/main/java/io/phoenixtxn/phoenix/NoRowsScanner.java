package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

/**
 * A scan answered without reading: no rows. Used where the answer is known. (1) Phoenix's own population pass (an
 * UPSERT SELECT over the data table) once the region servers have populated the index at the fence
 * ({@code io.phoenixtxn.index.IndexPopulation}): it writes nothing and keeps nothing on the client; Phoenix then
 * reports 0 rows for the CREATE INDEX, and the population's progress (log, JMX) has the counts. (2) A bulk load's
 * mapper reading the prior state of rows of a table that held no row at the load's snapshot
 * ({@link LoadMapperSnapshot}).
 */
final class NoRowsScanner implements ResultScanner {
    NoRowsScanner() {
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
