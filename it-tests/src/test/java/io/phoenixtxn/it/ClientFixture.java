package io.phoenixtxn.it;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.tm.TransactionManager;
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
import java.util.function.Supplier;

/**
 * Direct use of the transactional HBase client on the shared minicluster (no Phoenix in between). At the top level
 * with {@link SharedStack} because two layers use it: the client ITs ({@code it/client/}) and the online-index ITs
 * ({@code it/index/}) that fence a table through a client of their own.
 */
public final class ClientFixture {
    public static final byte[] FAMILY = Bytes.toBytes("f");
    public static final byte[] QUALIFIER = Bytes.toBytes("v");

    private ClientFixture() {
    }

    public static Connection hbase() throws IOException {
        return SharedStack.get().hbase().getConnection();
    }

    public static Supplier<TransactionManager> tm() {
        return () -> SharedStack.get().transactionManager();
    }

    public static TxnClient client(TxnClientConfig.PostCommitMode mode) throws IOException {
        return new TxnClient(hbase(), tm(), TxnClientConfig.defaults().withPostCommitMode(mode));
    }

    /** A table with one family, unlimited versions, and our snapshot-read observer. */
    public static TableName createTable(String prefix) throws IOException {
        TableName name = TableName.valueOf(SharedStack.uniqueTable(prefix));
        try (Admin admin = hbase().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(Integer.MAX_VALUE)
                            .build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build());
        }
        return name;
    }

    public static void write(TransactionalTable table, Transaction tx, String row, String value) throws IOException {
        table.put(tx, new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value)));
    }

    public static String read(TransactionalTable table, Transaction tx, String row) throws IOException {
        Result r = table.get(tx, new Get(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER));
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        return v == null ? null : Bytes.toString(v);
    }

    public static long readLong(TransactionalTable table, Transaction tx, String row) throws IOException {
        Result r = table.get(tx, new Get(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER));
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        return v == null ? 0 : Bytes.toLong(v);
    }

    public static void writeLong(TransactionalTable table, Transaction tx, String row, long value) throws IOException {
        table.put(tx, new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value)));
    }
}
