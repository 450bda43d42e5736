package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.WriteMode;
import io.phoenixtxn.index.IndexBuildProgress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The HBase {@link Table} Phoenix reads and writes a transactional table through. Every call uses the context's
 * current transaction. {@link WriteMode#COMMITTED_ON_WRITE}: index population, whose rows are committed as they land.
 * A writer of a transaction begun lazily offers a single-row write to the context first
 * ({@link PhoenixTxnContext#stashIfFastPath}), which keeps it back for a bwc at commit.
 */
final class PhoenixTxnTable implements Table {
    private final PhoenixTxnContext context;
    private final TransactionalTable table;
    private final boolean commitOnWrite;
    private final WriteMode mode;
    /** For writers: the data table as Phoenix resolved it (whose index this table may be) and its connection. */
    private final PhoenixConnection connection;
    private final PTable dataTable;

    PhoenixTxnTable(PhoenixTxnContext context, Table htable, WriteMode mode) {
        this(context, htable, mode, null, null);
    }

    PhoenixTxnTable(PhoenixTxnContext context, Table htable, WriteMode mode, PhoenixConnection connection,
                    PTable dataTable) {
        this.context = context;
        this.table = TxnClient.wrapTable(htable, mode);
        this.commitOnWrite = mode == WriteMode.COMMITTED_ON_WRITE;
        this.mode = mode;
        this.connection = connection;
        this.dataTable = dataTable;
    }

    /** A transactional write, unless it went to an index another client dropped ({@link DroppedIndexWrites}). */
    private void write(List<? extends Row> rows, TransactionalWrite write) throws IOException {
        context.refuseWritesOfAMapperView();
        Transaction tx = connection == null ? tx() : context.transactionForWrite();
        if (context.handedOutProvisionalStamps()) {
            for (Row row : rows) {
                if (row instanceof org.apache.hadoop.hbase.client.Mutation) {
                    context.restamp((org.apache.hadoop.hbase.client.Mutation) row, tx);
                }
            }
        }
        try {
            context.beforeUsing(table.getName());
            write.run(tx);
        } catch (IOException e) {
            if (DroppedIndexWrites.isDroppedIndex(connection, dataTable, table.getName(), e)) {
                table.forgetWrites(tx);
                return;
            }
            throw e;
        }
    }

    @FunctionalInterface
    private interface TransactionalWrite {
        void run(Transaction tx) throws IOException;
    }

    /** True if the context kept the single row of {@code actions} back for the fast path. */
    private boolean keptForFastPath(List<?> actions) throws IOException {
        return connection != null && !commitOnWrite
                && context.stashIfFastPath(dataTable, table.getName(), FastPathRoute.singleRowWrite(actions), mode);
    }

    private Transaction tx() throws IOException {
        return context.requireTransaction();
    }

    @Override
    public TableName getName() {
        return table.getName();
    }

    @Override
    public Configuration getConfiguration() {
        return table.raw().getConfiguration();
    }

    @Override
    public TableDescriptor getDescriptor() throws IOException {
        return table.raw().getDescriptor();
    }

    @Override
    public RegionLocator getRegionLocator() throws IOException {
        return table.raw().getRegionLocator();
    }

    @Override
    public Result get(Get get) throws IOException {
        try {
            context.beforeUsing(table.getName());
            return table.get(tx(), get);
        } catch (IOException e) {
            throw DroppedTableReads.translate(table.getName(), e, context.metadataOwner());
        }
    }

    @Override
    public Result[] get(List<Get> gets) throws IOException {
        try {
            context.beforeUsing(table.getName());
            return table.get(tx(), gets);
        } catch (IOException e) {
            throw DroppedTableReads.translate(table.getName(), e, context.metadataOwner());
        }
    }

    @Override
    public boolean exists(Get get) throws IOException {
        context.beforeUsing(table.getName());
        return table.exists(tx(), get);
    }

    @Override
    public boolean[] exists(List<Get> gets) throws IOException {
        Result[] results = get(gets);
        boolean[] exists = new boolean[results.length];
        for (int i = 0; i < results.length; i++) {
            exists[i] = !results[i].isEmpty();
        }
        return exists;
    }

    @Override
    public ResultScanner getScanner(Scan scan) throws IOException {
        // Phoenix puts its own server-time ranges on scans of transactional tables (CREATE INDEX's population:
        // [lower bound, now in ms); post-DDL scans): they are not in the versions' domain, and Phoenix's own Omid
        // table drops them likewise. The snapshot alone decides what the scan sees.
        IndexBuildProgress population = context.population();
        if (population != null && population.isPopulatedOnRegionServers()
                && context.runsPopulation(population)
                && population.getDataTable().equals(table.getName().getNameAsString())) {
            return new NoRowsScanner(); // Phoenix's pass of a population the region servers already did
        }
        if (context.knownEmpty(table.getName())) {
            return new NoRowsScanner(); // a bulk load's mapper reading a table that was empty at the load's start
        }
        Scan snapshotScan = new Scan(scan).setTimeRange(0, Long.MAX_VALUE);
        ResultScanner scanner;
        try {
            context.beforeUsing(table.getName());
            scanner = new DroppedTableScanner(table.getScanner(tx(), snapshotScan), table.getName(),
                    context.metadataOwner());
        } catch (IOException e) {
            throw DroppedTableReads.translate(table.getName(), e, context.metadataOwner());
        }
        return population == null ? scanner : new CountingScanner(scanner, population);
    }

    @Override
    public ResultScanner getScanner(byte[] family) throws IOException {
        return getScanner(new Scan().addFamily(family));
    }

    @Override
    public ResultScanner getScanner(byte[] family, byte[] qualifier) throws IOException {
        return getScanner(new Scan().addColumn(family, qualifier));
    }

    @Override
    public void put(Put put) throws IOException {
        if (commitOnWrite) {
            Transaction tx = tx();
            table.raw().put(TransactionalTable.markCommitted(put, tx.writePointer(), tx.writePointer()));
            populationWrote(1);
            return;
        }
        if (keptForFastPath(List.of(put))) {
            return;
        }
        write(List.of(put), tx -> table.put(tx, put));
    }

    @Override
    public void put(List<Put> puts) throws IOException {
        if (commitOnWrite) {
            Transaction tx = tx();
            List<Put> committed = new ArrayList<>(puts.size());
            for (Put put : puts) {
                committed.add(TransactionalTable.markCommitted(put, tx.writePointer(), tx.writePointer()));
            }
            table.raw().put(committed);
            populationWrote(committed.size());
            return;
        }
        if (keptForFastPath(puts)) {
            return;
        }
        write(puts, tx -> table.put(tx, puts));
    }

    @Override
    public void delete(Delete delete) throws IOException {
        if (keptForFastPath(List.of(delete))) {
            return;
        }
        write(List.of(delete), tx -> table.delete(tx, delete));
    }

    @Override
    public void delete(List<Delete> deletes) throws IOException {
        if (keptForFastPath(deletes)) {
            deletes.clear(); // HBase's contract: the list keeps the deletes that failed
            return;
        }
        write(deletes, tx -> table.delete(tx, new ArrayList<>(deletes)));
    }

    @Override
    public void batch(List<? extends Row> actions, Object[] results) throws IOException, InterruptedException {
        if (commitOnWrite && actions.stream().allMatch(a -> a instanceof Put)) {
            List<Put> puts = new ArrayList<>(actions.size());
            actions.forEach(a -> puts.add((Put) a));
            put(puts);
            fillEmpty(results);
            return;
        }
        if (keptForFastPath(actions)) {
            fillEmpty(results);
            return;
        }
        write(actions, tx -> {
            table.batch(tx, actions, results);
        });
        fillMissing(results);
    }

    private void populationWrote(int rows) {
        IndexBuildProgress population = context.population();
        if (population != null) {
            population.written(table.getName().getNameAsString(), rows);
        }
    }

    /** After a batch whose writes went to a dropped index: Phoenix expects a result per action. */
    private static void fillMissing(Object[] results) {
        if (results != null) {
            for (int i = 0; i < results.length; i++) {
                if (results[i] == null) {
                    results[i] = Result.EMPTY_RESULT;
                }
            }
        }
    }

    private static void fillEmpty(Object[] results) {
        if (results != null) {
            for (int i = 0; i < results.length; i++) {
                results[i] = Result.EMPTY_RESULT;
            }
        }
    }

    @Override
    public void close() throws IOException {
        table.close();
    }
}
