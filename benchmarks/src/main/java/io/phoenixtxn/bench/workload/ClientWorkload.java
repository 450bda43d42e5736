package io.phoenixtxn.bench.workload;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Issue 4's comparison: a single-row transaction through our HBase client (begin, put, commit; begin, get,
 * commit) versus the same native HBase put and get, on the same minicluster in one run.
 */
final class ClientWorkload {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("v");

    private ClientWorkload() {
    }

    static List<String> run(EmbeddedStack stack, int[] threadCounts, int warmup, int ops, PrintStream out)
            throws Exception {
        Connection hbase = stack.hbase().getConnection();
        TableName txTable = create(hbase, "BENCH_CLIENT_TX", true);
        TableName plainTable = create(hbase, "BENCH_CLIENT_PLAIN", false);
        List<String> rows = new ArrayList<>();
        try (TxnClient client = new TxnClient(hbase, stack::transactionManager, TxnClientConfig.from(
                stack.configuration()::get))) {
            for (int threads : threadCounts) {
                try (Table plain = hbase.getTable(plainTable); TransactionalTable tx = client.table(txTable)) {
                    List<Stats> stats = List.of(
                            Measure.run("native HBase put", threads, warmup, ops,
                                    (t, i) -> plain.put(put(t, i))),
                            Measure.run("transaction: begin, put, commit", threads, warmup, ops, (t, i) -> {
                                Transaction txn = client.begin();
                                tx.put(txn, put(t, i));
                                client.commit(txn);
                            }),
                            Measure.run("native HBase get", threads, warmup, ops,
                                    (t, i) -> plain.get(get(t, i, ops))),
                            Measure.run("transaction: begin, get, commit", threads, warmup, ops, (t, i) -> {
                                Transaction txn = client.begin();
                                tx.get(txn, get(t, i, ops));
                                client.commit(txn);
                            }));
                    for (Stats s : stats) {
                        rows.add(s.row(threads));
                        out.println(s.row(threads));
                    }
                }
            }
        }
        return rows;
    }

    private static Put put(int thread, int i) {
        return new Put(Bytes.toBytes(thread * 10_000_000L + i)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(i));
    }

    private static Get get(int thread, int i, int ops) {
        return new Get(Bytes.toBytes(thread * 10_000_000L + Math.abs(i) % Math.max(1, ops)))
                .addColumn(FAMILY, QUALIFIER);
    }

    static TableName create(Connection hbase, String name, boolean transactional) throws Exception {
        TableName table = TableName.valueOf(name);
        try (Admin admin = hbase.getAdmin()) {
            if (!admin.tableExists(table)) {
                TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(table)
                        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                                .setMaxVersions(transactional ? Integer.MAX_VALUE : 1).build());
                if (transactional) {
                    builder.setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER);
                }
                admin.createTable(builder.build());
            }
        }
        return table;
    }
}
