package io.phoenixtxn.it.client;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.SharedStack;
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
import java.util.function.UnaryOperator;

/**
 * Fixture of the HBase-client-level ITs: plain HBase tables carrying our snapshot-read observer (no Phoenix in
 * between), read and written through {@link TxnClient} on the shared minicluster.
 */
final class ClientTables {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("v");

    private ClientTables() {
    }

    static Connection hbase() throws IOException {
        return SharedStack.get().hbase().getConnection();
    }

    /** A client whose commit cells are written before commit returns (post-commit SYNC). */
    static TxnClient client() throws IOException {
        return new TxnClient(hbase(), () -> SharedStack.get().transactionManager(),
                TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC));
    }

    /** A table with one family shaped by {@code family} (start from the HBase API's defaults) and our observer. */
    static TableName createTable(String prefix, UnaryOperator<ColumnFamilyDescriptorBuilder> family)
            throws IOException {
        TableName name = TableName.valueOf(SharedStack.uniqueTable(prefix));
        try (Admin admin = hbase().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(family.apply(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build());
        }
        return name;
    }

    static void write(TransactionalTable table, Transaction tx, String row, String value) throws IOException {
        table.put(tx, new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value)));
    }

    static String read(TransactionalTable table, Transaction tx, String row) throws IOException {
        return valueOf(table.get(tx, new Get(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER)));
    }

    static String valueOf(Result r) {
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        return v == null ? null : Bytes.toString(v);
    }

    /** Commits {@code row = value} in a transaction of its own; returns that transaction. */
    static Transaction commitValue(TxnClient client, TransactionalTable table, String row, String value)
            throws IOException {
        Transaction tx = client.begin();
        write(table, tx, row, value);
        client.commit(tx);
        return tx;
    }
}
