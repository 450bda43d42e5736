package io.phoenixtxn.phoenix;

import io.phoenixtxn.index.IndexBuildProgress;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

import java.io.IOException;

/** Counts the data rows an index population reads (its "rows scanned" progress). */
final class CountingScanner implements ResultScanner {
    private final ResultScanner delegate;
    private final IndexBuildProgress progress;

    CountingScanner(ResultScanner delegate, IndexBuildProgress progress) {
        this.delegate = delegate;
        this.progress = progress;
    }

    @Override
    public Result next() throws IOException {
        Result r = delegate.next();
        if (r != null) {
            progress.scanned(1);
        }
        return r;
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public boolean renewLease() {
        return delegate.renewLease();
    }

    @Override
    public ScanMetrics getScanMetrics() {
        return delegate.getScanMetrics();
    }
}
