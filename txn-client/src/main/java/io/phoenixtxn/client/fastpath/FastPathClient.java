package io.phoenixtxn.client.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fast path of a {@link TxnClient}'s cluster (HBase-level API for applications without Phoenix): hands out
 * {@link FastPathTable}s, and runs fast-path operations with the documented fallback (VLDB'18 sec. 4.1: "if an FP
 * transaction aborts, it can be retried either via the fast path again, or as a regular one"). A fallback runs the same
 * work as a regular transaction of the {@link TxnClient}, which itself retries write-write conflicts, up to
 * {@link #MAX_ATTEMPTS} attempts in all. A refusal no regular retry gets past ({@link FastPathAbortedException.Reason
 * #FENCED}) is thrown as it is, and so is a write in doubt ({@link FastPathInDoubtException}): it may have been applied,
 * so it is neither sent again nor rerun as a regular transaction. Writes travel on a connection of their own whose
 * HBase client does not retry ({@link FastPathTable}); close this client to close it.
 */
public final class FastPathClient implements Closeable {
    /** Attempts of one operation (fast path first, then regular transactions) before the last failure is thrown. */
    public static final int MAX_ATTEMPTS = 8;

    private final TxnClient regular;
    private final byte[] commitTable;
    private final FastPathStats stats = new FastPathStats();
    /** The connection whose HBase client does not retry, for writes' carriers (FastPathTable); opened on first use. */
    private Connection carriers;

    public FastPathClient(TxnClient regular) {
        this.regular = regular;
        this.commitTable = regular.config().commitTable().getBytes(StandardCharsets.UTF_8);
    }

    /** What the fast path of this client did ({@link #bwcOrRegular}, {@link #brwcOrRegular}). */
    public FastPathStats stats() {
        return stats;
    }

    /** A fast-path view of a table of this client's cluster; close it after use. */
    public FastPathTable table(TableName name) throws IOException {
        return new FastPathTable(regular.connection().getTable(name), carriers().getTable(name), commitTable);
    }

    /**
     * The carriers' connection: the regular one's settings with HBase client retries off, so that no write is resent
     * by HBase after a region move made the region server forget its nonce (it could apply twice).
     */
    private synchronized Connection carriers() throws IOException {
        if (carriers == null) {
            Configuration conf = new Configuration(regular.connection().getConfiguration());
            conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 0);
            carriers = ConnectionFactory.createConnection(conf);
        }
        return carriers;
    }

    /** Closes the carriers' connection (the {@link TxnClient} stays open). */
    @Override
    public synchronized void close() throws IOException {
        if (carriers != null) {
            carriers.close();
            carriers = null;
        }
    }

    /**
     * bwc, or, if the fast path aborts for a reason a regular transaction gets past, the same blind write as a regular
     * transaction. Returns the version (the commit timestamp) it committed at.
     */
    public long bwcOrRegular(TableName name, Put put) throws IOException {
        try (FastPathTable table = table(name)) {
            try {
                long version = table.bwc(put);
                stats.committed();
                return version;
            } catch (FastPathAbortedException e) {
                throwUnlessRegularHelps(e); // known not written; a write in doubt (FastPathInDoubtException) is thrown
            }
        }
        return inRegularTransactions(name, (tx, table) -> {
            table.put(tx, put);
            return null;
        }).tx().commitTs();
    }

    /**
     * brwc, or, if the fast path aborts for a reason a regular transaction gets past, the same function of the row as a
     * regular transaction: read at its snapshot, computed by the same code, written, committed.
     */
    public BrwcResult brwcOrRegular(TableName name, byte[] row, FastPathFunction function) throws IOException {
        try (FastPathTable table = table(name)) {
            try {
                BrwcResult result = table.brwc(row, function);
                stats.committed();
                return result;
            } catch (FastPathAbortedException e) {
                throwUnlessRegularHelps(e); // known not written; a write in doubt (FastPathInDoubtException) is thrown
            }
        }
        Committed<List<ColumnValue>> done = inRegularTransactions(name, (tx, table) -> {
            Result current = table.get(tx, new Get(row).addFamily(function.family()));
            List<ColumnValue> written = function.apply((family, qualifier) -> current.getValue(family, qualifier));
            if (written != null) {
                Put put = new Put(row);
                for (ColumnValue column : written) {
                    put.addColumn(column.family(), column.qualifier(), column.value());
                }
                table.put(tx, put);
            }
            return written;
        });
        long version = done.tx().commitTs(); // a read-only transaction commits at its start
        return new BrwcResult(done.value() != null, resultOf(row, done.value(), version), version);
    }

    private void throwUnlessRegularHelps(FastPathAbortedException e) throws FastPathAbortedException {
        stats.aborted(e.reason());
        if (!e.reason().regularRetryHelps()) {
            throw e;
        }
    }

    /** One attempt's work inside a regular transaction. */
    @FunctionalInterface
    private interface Work<T> {
        T run(Transaction tx, TransactionalTable table) throws IOException;
    }

    private record Committed<T>(Transaction tx, T value) {
    }

    /** Runs {@code work} in regular transactions until one commits; write-write conflicts are retried. */
    private <T> Committed<T> inRegularTransactions(TableName name, Work<T> work) throws IOException {
        IOException last = null;
        for (int attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
            Transaction tx = regular.begin();
            try (TransactionalTable table = regular.table(name)) {
                T value = work.run(tx, table);
                regular.commit(tx);
                return new Committed<>(tx, value);
            } catch (TxnAbortedException | FastPathWriteConflictException e) {
                regular.abort(tx); // a no-op for a transaction the commit already rolled back
                last = e;
            } catch (IOException | RuntimeException e) {
                regular.abort(tx);
                throw e;
            }
        }
        throw last;
    }

    private static Result resultOf(byte[] row, List<ColumnValue> written, long version) {
        if (written == null) {
            return Result.EMPTY_RESULT;
        }
        List<Cell> cells = new ArrayList<>(written.size());
        for (ColumnValue column : written) {
            cells.add(new KeyValue(row, column.family(), column.qualifier(), version, column.isDelete()
                    ? OnDiskLayout.TOMBSTONE : column.value()));
        }
        cells.sort(org.apache.hadoop.hbase.CellComparator.getInstance());
        return Result.create(cells);
    }

    @Override
    public String toString() {
        return "FastPathClient{" + new String(commitTable, StandardCharsets.UTF_8) + "}";
    }
}
