package io.phoenixtxn.index;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;

/**
 * A population's index-row writer on the region server's own connection (normal priority): HBase's
 * {@link BufferedMutator} per index table sends a full buffer in the background while the population scans on, so
 * scanning and writing overlap; {@link #flush} returns once every row handed over is written (before each progress
 * page, so a resumed scanner misses nothing). A failed write surfaces at the next write or flush and fails the page,
 * which the client retries (index rows at the fence are idempotent).
 */
final class BufferedIndexRowSink implements PopulatingRegionScanner.IndexRowSink {
    private final Connection connection;
    private final long bufferBytes;
    private final int operationTimeoutMs;
    private final Map<TableName, BufferedMutator> mutators = new LinkedHashMap<>();

    BufferedIndexRowSink(Connection connection, long bufferBytes, int operationTimeoutMs) {
        this.connection = connection;
        this.bufferBytes = bufferBytes;
        this.operationTimeoutMs = operationTimeoutMs;
    }

    @Override
    public void write(TableName indexTable, List<Put> rows) throws IOException {
        BufferedMutator mutator = mutators.get(indexTable);
        if (mutator == null) {
            mutator = connection.getBufferedMutator(new BufferedMutatorParams(indexTable)
                    .writeBufferSize(bufferBytes).operationTimeout(operationTimeoutMs));
            mutators.put(indexTable, mutator);
        }
        mutator.mutate(rows);
    }

    @Override
    public void flush() throws IOException {
        for (BufferedMutator mutator : mutators.values()) {
            mutator.flush();
        }
    }

    /** Closes the mutators; rows not yet flushed are sent first (a page that failed is retried anyway). */
    @Override
    public void close() throws IOException {
        IOException first = null;
        for (BufferedMutator mutator : mutators.values()) {
            try {
                mutator.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        mutators.clear();
        if (first != null) {
            throw first;
        }
    }
}
