package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.Closeable;
import java.io.IOException;

/**
 * A {@link TxnClient} whose transactions tell the TM when they end (commit, rollback, or a failure), so they stop
 * holding the GC horizon: what the client will do by itself once it registers its transactions.
 */
final class Txns implements Closeable {
    private final TxnClient client;
    private final TransactionManager tm;

    Txns(TxnClient client, TransactionManager tm) {
        this.client = client;
        this.tm = tm;
    }

    TxnClient client() {
        return client;
    }

    TransactionalTable table(TableName name) throws IOException {
        return client.table(name);
    }

    Transaction begin() throws IOException {
        return client.begin();
    }

    /** Commits and ends the transaction at the TM, whatever the outcome. */
    void commit(Transaction tx) throws IOException {
        try {
            client.commit(tx);
        } finally {
            finished(tx);
        }
    }

    /** Ends a transaction at the TM (committed elsewhere, read-only and done, or its lease ran out). */
    void finished(Transaction tx) throws TmException {
        tm.finished(new long[] {tx.txId()});
    }

    /** Keeps a long transaction's lease alive. */
    void keepAlive(Transaction tx) throws TmException {
        long[] expired = tm.keepAlive(new long[] {tx.txId()});
        if (expired.length > 0) {
            throw new AssertionError("transaction " + tx.txId() + " expired at the TM");
        }
    }

    /** Commits {@code row = value} (one column) in a transaction of its own; returns it. */
    Transaction commitValue(TransactionalTable table, String row, String value) throws IOException {
        Transaction tx = begin();
        table.put(tx, new Put(Bytes.toBytes(row)).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes(value)));
        commit(tx);
        return tx;
    }

    static String read(TransactionalTable table, Transaction tx, String row) throws IOException {
        Result r = table.get(tx, new Get(Bytes.toBytes(row)).addColumn(GcStack.FAMILY, GcStack.Q));
        byte[] v = r.getValue(GcStack.FAMILY, GcStack.Q);
        return v == null ? null : Bytes.toString(v);
    }

    @Override
    public void close() {
        client.close();
    }
}
