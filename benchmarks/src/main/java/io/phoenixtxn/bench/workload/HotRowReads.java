package io.phoenixtxn.bench.workload;

import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.phoenix.schema.types.PLong;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Issue 11's read-cost workload: one row of a {@code TRANSACTIONAL=true} table (two columns besides the key) updated
 * N times, each update its own transaction and every tenth rolled back (Phoenix keeps a transaction's mutations on the
 * client until commit, so a rollback writes nothing), read by primary key against a cold row of the same table
 * written once.
 * Reports the hot row's raw cell count and point-SELECT latency hot vs cold, before any flush and after a flush
 * plus major compaction (compaction-time GC below the horizon, which the benchmark lets pass its history first).
 */
final class HotRowReads {
    private static final long HOT = 1;
    private static final long COLD = 2;
    /** A second cold row: cold vs cold shows how far apart two equal reads land in this run (the noise). */
    private static final long COLD_TWIN = 3;
    /** One in this many updates is rolled back. */
    private static final int ROLLBACK_EVERY = 10;

    private HotRowReads() {
    }

    static String header() {
        return "| updates of the hot row | phase | raw cells hot / cold | hot mean / p50 / p99 us"
                + " | cold mean / p50 / p99 us | hot / cold (mean, p50) | cold twin / cold (mean, p50) | load avg |\n"
                + "| --- | --- | --- | --- | --- | --- | --- | --- |";
    }

    /** Writes the history, then measures before any flush and after flush + major compaction; one table row each. */
    static List<String> run(EmbeddedStack stack, int updates, int warmup, int reads, PrintStream out)
            throws Exception {
        String table = "READCOST_" + updates;
        try (Connection c = stack.connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            }
            c.setAutoCommit(false);
            String last = writeHistory(c, table, updates, out);
            String before = measure(stack, c, table, updates, "before any flush", last, warmup, reads);
            out.println(before);
            c.commit();
            GcReady.awaitHorizonPast(stack.transactionManager(), GcReady.now());
            flushAndMajorCompact(stack, table);
            String after = measure(stack, c, table, updates, "after flush + major compaction", last, warmup, reads);
            out.println(after);
            return List.of(before, after);
        }
    }

    /** The cold row once, then {@code updates} transactions on the hot row; returns the hot row's last value. */
    private static String writeHistory(Connection c, String table, int updates, PrintStream out) throws Exception {
        String last = null;
        try (PreparedStatement upsert = c.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?, ?)")) {
            for (long cold : new long[] {COLD, COLD_TWIN}) {
                upsert.setLong(1, cold);
                upsert.setString(2, "cold");
                upsert.setLong(3, 0);
                upsert.executeUpdate();
            }
            c.commit();
            long started = System.nanoTime();
            for (int i = 0; i < updates; i++) {
                String value = "hot-" + i;
                upsert.setLong(1, HOT);
                upsert.setString(2, value);
                upsert.setLong(3, i);
                upsert.executeUpdate();
                if (i % ROLLBACK_EVERY == ROLLBACK_EVERY - 1) {
                    c.rollback();
                } else {
                    c.commit();
                    last = value;
                }
                if ((i + 1) % Math.max(1, updates / 10) == 0) {
                    out.printf("  %s: %d of %d updates (%d s)%n", table, i + 1, updates,
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
                }
            }
        }
        return last;
    }

    private static String measure(EmbeddedStack stack, Connection c, String table, int updates, String phase,
                                  String hotValue, int warmup, int reads) throws Exception {
        long hotCells = rawCells(stack, table, HOT);
        long coldCells = rawCells(stack, table, COLD);
        int files = storeFiles(stack, table);
        String where = phase + " (" + files + (files == 1 ? " store file)" : " store files)");
        try (PreparedStatement select = c.prepareStatement("SELECT V, N FROM " + table + " WHERE K = ?")) {
            List<Stats> stats = new Alternating()
                    .add("hot", thread -> i -> read(c, select, HOT, hotValue))
                    .add("cold", thread -> i -> read(c, select, COLD, "cold"))
                    .add("cold twin", thread -> i -> read(c, select, COLD_TWIN, "cold"))
                    .run(warmup, reads, 10);
            Stats hot = stats.get(0);
            Stats cold = stats.get(1);
            Stats twin = stats.get(2);
            return String.format("| %,d | %s | %,d / %,d | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.2fx, %.2fx"
                            + " | %.2fx, %.2fx | %s |", updates, where, hotCells, coldCells, hot.meanMicros,
                    hot.p50Micros, hot.p99Micros, cold.meanMicros, cold.p50Micros, cold.p99Micros,
                    hot.meanMicros / cold.meanMicros, hot.p50Micros / cold.p50Micros,
                    twin.meanMicros / cold.meanMicros, twin.p50Micros / cold.p50Micros, LoadAverage.now());
        }
    }

    /** A point SELECT as an application runs it: in its own read-only transaction, checked, then committed. */
    private static void read(Connection c, PreparedStatement select, long key, String expected) throws Exception {
        select.setLong(1, key);
        try (ResultSet rs = select.executeQuery()) {
            if (!rs.next() || !expected.equals(rs.getString(1))) {
                throw new IllegalStateException("row " + key + " does not read " + expected);
            }
        }
        c.commit();
    }

    /** Every cell the row holds in HBase: all versions, commit cells, and the delete markers of rollbacks. */
    static long rawCells(EmbeddedStack stack, String table, long key) throws Exception {
        byte[] row = PLong.INSTANCE.toBytes(key);
        long cells = 0;
        try (Table t = stack.hbase().getConnection().getTable(TableName.valueOf(table));
             ResultScanner scanner = t.getScanner(new Scan().withStartRow(row).withStopRow(row, true).setRaw(true)
                     .readAllVersions())) {
            for (Result r : scanner) {
                cells += r.size();
            }
        }
        return cells;
    }

    /** Store files of the table's regions: 0 while everything is in the memstore. */
    private static int storeFiles(EmbeddedStack stack, String table) {
        int files = 0;
        for (HRegion region : stack.hbase().getHBaseCluster().getRegions(TableName.valueOf(table))) {
            for (HStore store : region.getStores()) {
                files += store.getStorefilesCount();
            }
        }
        return files;
    }

    /** Flushes and major-compacts every region of the table in place (the stack's region server is in this JVM). */
    private static void flushAndMajorCompact(EmbeddedStack stack, String table) throws Exception {
        TableName name = TableName.valueOf(table);
        stack.hbase().flush(name);
        stack.hbase().compact(name, true);
    }
}
