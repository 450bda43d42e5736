package io.phoenixtxn.bulkload;

import io.phoenixtxn.client.BulkLoads;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.phoenix.LoadMapperSnapshot;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.util.ToolRunner;
import org.apache.phoenix.mapreduce.CsvBulkLoadTool;
import org.apache.phoenix.mapreduce.bulkload.TargetTableRef;
import org.apache.phoenix.mapreduce.util.PhoenixConfigurationUtil;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.util.PhoenixRuntime;
import org.apache.phoenix.util.QueryUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Phoenix's CsvBulkLoadTool (same arguments) with the transactional branch it lacks: on a transactional table the
 * load is one transaction of ours ({@link BulkLoads}). Before the MapReduce job it begins the load at the TM, which
 * holds the table and the index tables being loaded (their transactional writers abort as fenced until the load
 * ends); the job writes every cell at the load's start timestamp ({@link TransactionalHfileOutputFormat}); once
 * every file of every table landed, it commits the load, which makes all of it visible at once to transactions
 * that begin afterwards and to none that began before; then it writes the commit cells. A failure before the commit
 * point leaves nothing visible (the landed cells read as an aborted transaction's, and GC removes them). A table
 * with the fast path on has it turned off for the load, and left off. Non-transactional tables load
 * exactly as with Phoenix's tool.
 *
 * <pre>hadoop jar ... io.phoenixtxn.bulkload.TransactionalCsvBulkLoadTool --table T --input /data/t.csv</pre>
 */
public class TransactionalCsvBulkLoadTool extends CsvBulkLoadTool {
    /** Job setting: the load's start timestamp, the version of every cell the job writes. */
    public static final String LOAD_VERSION = LoadMapperSnapshot.VERSION;

    private static final Logger LOG = LoggerFactory.getLogger(TransactionalCsvBulkLoadTool.class);

    /** The load the job being set up writes (its start timestamp), or -1 for a non-transactional load. */
    private long jobLoadVersion = -1;
    /** Tables empty at the load's snapshot, for the job's mappers ({@link LoadMapperSnapshot#EMPTY_TABLES}). */
    private String jobEmptyTables = "";

    @Override
    public int submitJob(Configuration conf, String qualifiedTableName, String inputPaths, Path outputPath,
                         List<TargetTableRef> tablesToBeLoaded, boolean hasLocalIndexes) throws Exception {
        if (!isTransactional(conf, tablesToBeLoaded.get(0).getLogicalName())) {
            jobLoadVersion = -1;
            return super.submitJob(conf, qualifiedTableName, inputPaths, outputPath, tablesToBeLoaded,
                    hasLocalIndexes);
        }
        if (hasLocalIndexes) {
            throw new IllegalArgumentException("Table " + qualifiedTableName + " has local indexes, which are not"
                    + " transactional in phoenix-txn; a transactional bulk load cannot maintain them");
        }
        List<TableName> tables = physicalTables(tablesToBeLoaded);
        try (TmHandle tm = TmLocator.locate(conf::get);
             Connection hbase = ConnectionFactory.createConnection(conf);
             TxnClient client = new TxnClient(hbase, tm, TxnClientConfig.from(conf::get));
             Admin admin = hbase.getAdmin()) {
            for (TableName table : turnFastPathOff(admin, tables)) {
                // Not turned back on by the tool: another load may hold the table by then (its hold cannot stop
                // fast-path writes), or an index may exist; the operator decides (PhoenixFastPath.enable).
                LOG.warn("Fast path of {} turned off for the bulk load; it stays off until turned on again", table);
            }
            return load(client, conf, qualifiedTableName, inputPaths, outputPath, tablesToBeLoaded,
                    tables);
        }
    }

    private int load(TxnClient client, Configuration conf, String qualifiedTableName, String inputPaths,
                     Path outputPath, List<TargetTableRef> tablesToBeLoaded, List<TableName> tables)
            throws Exception {
        BulkLoads loads = client.bulkLoads();
        Transaction load = loads.begin(tables);
        LOG.info("Bulk load transaction {} holds {}: their transactional writers abort until it ends", load.txId(),
                tables);
        List<String> empty;
        try {
            boolean dataTable = checkIndexesUnchanged(conf, tablesToBeLoaded);
            empty = dataTable ? emptyAt(client, load, TableName.valueOf(tablesToBeLoaded.get(0).getPhysicalName()))
                    : List.of();
        } catch (Exception | Error e) {
            loads.abandon(load);
            throw e;
        }
        // Only the job's configuration carries the load (setupJob): a connection opened from this one is no view.
        jobLoadVersion = load.txId();
        jobEmptyTables = String.join(",", empty);
        if (!empty.isEmpty()) {
            LOG.info("{} holds no row at the load's snapshot: the mappers do not read its rows' prior state", empty);
        }
        String userProcessor = conf.get(PhoenixConfigurationUtil.UPSERT_HOOK_CLASS_CONFKEY);
        if (userProcessor != null && !userProcessor.equals(NullColumnProcessor.class.getName())) {
            conf.set(NullColumnProcessor.USER_PROCESSOR, userProcessor);
        }
        conf.set(PhoenixConfigurationUtil.UPSERT_HOOK_CLASS_CONFKEY, NullColumnProcessor.class.getName());
        int status;
        try {
            status = super.submitJob(conf, qualifiedTableName, inputPaths, outputPath, tablesToBeLoaded, false);
        } catch (Exception | Error e) {
            loads.abandon(load);
            LOG.error("Bulk load transaction {} failed before its commit point: nothing of it is visible", load.txId());
            throw e;
        } finally {
            jobLoadVersion = -1;
            jobEmptyTables = "";
        }
        if (status != 0) {
            loads.abandon(load);
            LOG.error("Bulk load transaction {} failed (status {}) before its commit point: nothing of it is"
                    + " visible", load.txId(), status);
            return status;
        }
        long commitTs = loads.commit(load, tables);
        LOG.info("Bulk load transaction {} committed at {}: its rows are visible to transactions that begin now",
                load.txId(), commitTs);
        try {
            long cells = loads.writeCommitCells(load.txId(), commitTs, tables);
            LOG.info("Bulk load transaction {}: {} commit cells written, its commit-table entry removed", load.txId(),
                    cells);
        } catch (IOException e) {
            LOG.warn("Bulk load transaction {} is committed, but writing its commit cells failed; its commit-table"
                    + " entry stays and readers resolve the load through it", load.txId(), e);
        }
        return 0;
    }

    /** Files of a transactional load must carry the load's version: Phoenix's own output format is replaced. */
    @Override
    protected void setupJob(Job job) {
        super.setupJob(job);
        if (jobLoadVersion > 0) {
            job.getConfiguration().setLong(LOAD_VERSION, jobLoadVersion);
            job.getConfiguration().set(LoadMapperSnapshot.EMPTY_TABLES, jobEmptyTables);
            job.setOutputFormatClass(TransactionalHfileOutputFormat.class);
        }
    }

    private static boolean isTransactional(Configuration conf, String logicalName) throws Exception {
        try (java.sql.Connection conn = QueryUtil.getConnection(conf)) {
            PTable table = PhoenixRuntime.getTable(conn, logicalName);
            return table.isTransactional();
        }
    }

    /**
     * Phoenix's tool listed the indexes to load before the load began: an index created since (its fence is below
     * the load's start, so the load's commit would not be refused) would get none of the loaded rows. Read again now
     * that the load holds the table (any later CREATE INDEX fences it above the load's start and aborts it).
     */
    private static boolean checkIndexesUnchanged(Configuration conf, List<TargetTableRef> refs) throws Exception {
        if (refs.size() == 1 && !isDataTable(conf, refs.get(0).getLogicalName())) {
            return false; // --index-table: one index alone
        }
        Set<String> listed = new java.util.HashSet<>();
        for (TargetTableRef ref : refs) {
            listed.add(ref.getPhysicalName());
        }
        try (java.sql.Connection conn = QueryUtil.getConnection(conf)) {
            PTable table = conn.unwrap(org.apache.phoenix.jdbc.PhoenixConnection.class)
                    .getTableNoCache(refs.get(0).getLogicalName());
            for (PTable index : table.getIndexes()) {
                if (!listed.contains(index.getPhysicalName().getString())) {
                    throw new IllegalStateException("Index " + index.getName().getString() + " of "
                            + table.getName().getString() + " was created while the bulk load started; the load"
                            + " would leave it without the loaded rows. Nothing was loaded: run the tool again");
                }
            }
        }
        return true;
    }

    /**
     * {@code table} if it holds no row at the load's snapshot (a snapshot read: stable, and the load's hold keeps
     * every later writer out), else nothing. The mappers then skip reading the prior state of its rows
     * ({@link LoadMapperSnapshot}): one region round trip per CSV line for a table with a mutable index.
     */
    private static List<String> emptyAt(TxnClient client, Transaction load, TableName table) throws IOException {
        try (TransactionalTable t = client.table(table);
             ResultScanner rows = t.getScanner(load, new Scan().setLimit(1).setCaching(1))) {
            return rows.next() == null ? List.of(table.getNameAsString()) : List.of();
        }
    }

    private static boolean isDataTable(Configuration conf, String logicalName) throws Exception {
        try (java.sql.Connection conn = QueryUtil.getConnection(conf)) {
            return PhoenixRuntime.getTable(conn, logicalName).getType() != org.apache.phoenix.schema.PTableType.INDEX;
        }
    }

    private static List<TableName> physicalTables(List<TargetTableRef> refs) {
        Set<TableName> tables = new LinkedHashSet<>();
        for (TargetTableRef ref : refs) {
            tables.add(TableName.valueOf(ref.getPhysicalName()));
        }
        return new ArrayList<>(tables);
    }

    /**
     * Fast-path writes commit without the TM, so the TM's hold cannot stop them: the fast path of every loaded table
     * that has it on is turned off (every region reopens without it) before the load begins.
     */
    private static List<TableName> turnFastPathOff(Admin admin, List<TableName> tables) throws IOException {
        List<TableName> on = new ArrayList<>();
        for (TableName table : tables) {
            if (FastPathSwitch.isEnabled(admin.getDescriptor(table))) {
                FastPathSwitch.disable(admin, table);
                on.add(table);
                LOG.info("Fast path of {} turned off for the bulk load", table);
            }
        }
        return on;
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new TransactionalCsvBulkLoadTool(), args));
    }
}
