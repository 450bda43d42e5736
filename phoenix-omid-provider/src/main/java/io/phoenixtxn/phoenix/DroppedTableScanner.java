package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

import java.io.IOException;

/**
 * A scanner whose failures on a table that is gone are reported as {@link DroppedTableReads} says: the HBase client
 * opens a scan's region scanner on its first {@code next()}, so that is where a dropped table shows.
 */
final class DroppedTableScanner implements ResultScanner {
    private final ResultScanner delegate;
    private final TableName table;
    private final PhoenixConnection metadata;

    DroppedTableScanner(ResultScanner delegate, TableName table, PhoenixConnection metadata) {
        this.delegate = delegate;
        this.table = table;
        this.metadata = metadata;
    }

    @Override
    public Result next() throws IOException {
        try {
            return delegate.next();
        } catch (IOException e) {
            throw DroppedTableReads.translate(table, e, metadata);
        }
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
