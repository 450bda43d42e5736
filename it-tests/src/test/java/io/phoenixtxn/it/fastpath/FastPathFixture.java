package io.phoenixtxn.it.fastpath;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;

/**
 * The fast-path ITs' view of the shared minicluster: plain HBase tables with our observer, a {@link TxnClient} that
 * finds the TM as a plain HBase application does ({@link TmLocator}, whose marker also lets the region server ask the
 * JVM's TM for bootstrap timestamps), and its {@link FastPathClient}.
 */
final class FastPathFixture implements AutoCloseable {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("v");

    private final TmHandle tm;
    final TxnClient client;
    final FastPathClient fastPath;

    private FastPathFixture(TmHandle tm, TxnClient client) {
        this.tm = tm;
        this.client = client;
        this.fastPath = new FastPathClient(client);
    }

    /** A client whose commit cells are written before commit returns. */
    static FastPathFixture open() throws IOException {
        return open(TxnClientConfig.PostCommitMode.SYNC);
    }

    static FastPathFixture open(TxnClientConfig.PostCommitMode mode) throws IOException {
        TmHandle tm;
        try {
            tm = TmLocator.locate(SharedStack.get().configuration()::get);
        } catch (TmException e) {
            throw new IOException(e);
        }
        return new FastPathFixture(tm, new TxnClient(hbase(), tm,
                TxnClientConfig.from(SharedStack.get().configuration()::get).withPostCommitMode(mode)));
    }

    static Connection hbase() throws IOException {
        return SharedStack.get().hbase().getConnection();
    }

    /** A table with one family, every version kept, our observer, and the fast path enabled. */
    static TableName createTable(String prefix) throws IOException {
        return createTable(prefix, true);
    }

    /** As {@link #createTable(String)}, with the fast path enabled ({@link FastPathSwitch}) or not (the default). */
    static TableName createTable(String prefix, boolean fastPath) throws IOException {
        TableName name = TableName.valueOf(SharedStack.uniqueTable(prefix));
        TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(name)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                        .setMaxVersions(Integer.MAX_VALUE).build())
                .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER);
        if (fastPath) {
            table.setValue(FastPathSwitch.ATTRIBUTE, "true");
        }
        try (Admin admin = hbase().getAdmin()) {
            admin.createTable(table.build());
        }
        return name;
    }

    FastPathTable fastPathTable(TableName name) throws IOException {
        return fastPath.table(name);
    }

    TransactionalTable table(TableName name) throws IOException {
        return client.table(name);
    }

    static Put put(String row, long value) {
        return new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value));
    }

    static Get get(String row) {
        return new Get(Bytes.toBytes(row));
    }

    /** The long in the test column, or null. */
    static Long value(Result r) {
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        return v == null ? null : Bytes.toLong(v);
    }

    /** The value a regular transaction begun now reads (it commits read-only). */
    Long readRegular(TableName name, String row) throws IOException {
        Transaction tx = client.begin();
        try (TransactionalTable t = table(name)) {
            return value(t.get(tx, get(row)));
        } finally {
            client.commit(tx);
        }
    }

    /** Commits {@code row = value} in a regular transaction of its own; returns it. */
    Transaction writeRegular(TableName name, String row, long value) throws IOException {
        Transaction tx = client.begin();
        try (TransactionalTable t = table(name)) {
            t.put(tx, put(row, value));
        }
        client.commit(tx);
        return tx;
    }

    @Override
    public void close() {
        try {
            fastPath.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        client.close();
        tm.close();
    }
}
