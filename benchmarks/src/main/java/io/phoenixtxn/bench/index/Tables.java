package io.phoenixtxn.bench.index;

import io.phoenixtxn.client.TxnClientConfig;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The two tables of the benchmark (same columns, same rows, one TRANSACTIONAL=true) and their bulk load. Values
 * are functions of the key so both tables hold identical rows: V and S are unique per row (a bijective mix of the
 * key), so a point query on either returns one row until writers start changing them.
 */
final class Tables {
    static final String TX = "BENCH_IDX_TX";
    static final String PLAIN = "BENCH_IDX_PLAIN";

    private Tables() {
    }

    static String v(long k) {
        return String.format("v%08x", (int) (k * 0x9E3779B1L));
    }

    static String s(long k) {
        return String.format("s%08x", (int) (k * 0x85EBCA77L));
    }

    static String p(long k) {
        return String.format("p%023d", k);
    }

    /**
     * Same columns and layout for both tables. The copy is created with COLUMN_ENCODED_BYTES=0 because Phoenix
     * refuses column encoding on our (OMID-slot) transactional tables, so both store one cell per column under the
     * column name. Both are pre-split into {@code regions} equal key ranges so the builds see the same parallelism.
     */
    static void create(BenchCluster stack, long rows, int regions) throws SQLException {
        create(stack, rows, regions, true);
    }

    /** As {@link #create(BenchCluster, long, int)}; without the non-transactional copy if {@code withCopy} is false. */
    static void create(BenchCluster stack, long rows, int regions, boolean withCopy) throws SQLException {
        create(stack, rows, regions, withCopy, 0);
    }

    /**
     * As {@link #create(BenchCluster, long, int, boolean)}; with {@code guidepostWidth > 0} both tables get that
     * GUIDE_POSTS_WIDTH, for {@link #collectStatistics}.
     */
    static void create(BenchCluster stack, long rows, int regions, boolean withCopy, long guidepostWidth)
            throws SQLException {
        StringBuilder split = new StringBuilder();
        for (int i = 1; i < regions; i++) {
            // Cast: Phoenix encodes a split point as its literal's type, and an integer literal's four bytes, padded,
            // sort above every BIGINT key of 0..rows-1 (all rows in the first region, the others empty).
            split.append(i == 1 ? "" : ", ").append("CAST(").append(rows * i / regions).append(" AS BIGINT)");
        }
        String splitOn = (guidepostWidth > 0 ? ", GUIDE_POSTS_WIDTH=" + guidepostWidth : "")
                + (regions > 1 ? " SPLIT ON (" + split + ")" : "");
        String columns = " (K BIGINT NOT NULL PRIMARY KEY, V VARCHAR, S VARCHAR, N BIGINT, P VARCHAR)";
        try (Connection c = stack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TX + columns + " TRANSACTIONAL=true" + splitOn);
            if (withCopy) {
                s.execute("CREATE TABLE " + PLAIN + columns + " COLUMN_ENCODED_BYTES=0" + splitOn);
            }
        }
    }

    /** Result of one bulk load. */
    static final class Load {
        final String table;
        final long rows;
        final long commits;
        final long nanos;
        /** Until asynchronous post-commits finished (commit table empty); equals {@link #nanos} for the copy. */
        final long settledNanos;

        Load(String table, long rows, long commits, long nanos, long settledNanos) {
            this.table = table;
            this.rows = rows;
            this.commits = commits;
            this.nanos = nanos;
            this.settledNanos = settledNanos;
        }

        double rowsPerSecond() {
            return rows / (nanos / 1e9);
        }

        double settledRowsPerSecond() {
            return rows / (settledNanos / 1e9);
        }
    }

    /**
     * Loads keys 0..rows-1 with batched UPSERTs, a commit every {@code batch} rows, from {@code threads} threads on
     * disjoint key ranges. For the transactional table, also waits until the commit table is empty (every
     * asynchronous post-commit has written its commit cells), so the settled rate counts the whole write path.
     */
    static Load load(BenchCluster stack, String table, long rows, int batch, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long started = System.nanoTime();
        List<Future<Long>> parts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long lo = rows * t / threads;
            long hi = rows * (t + 1) / threads;
            parts.add(pool.submit(() -> loadRange(stack, table, lo, hi, batch)));
        }
        long commits = 0;
        try {
            for (Future<Long> f : parts) {
                commits += f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long loaded = System.nanoTime() - started;
        long settled = loaded;
        if (table.equals(TX)) {
            awaitCommitTableEmpty(stack, TimeUnit.MINUTES.toNanos(15));
            settled = System.nanoTime() - started;
        }
        return new Load(table, rows, commits, loaded, settled);
    }

    private static long loadRange(BenchCluster stack, String table, long lo, long hi, int batch)
            throws SQLException {
        long commits = 0;
        try (Connection c = stack.connect();
             PreparedStatement upsert = c.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?, ?, ?, ?)")) {
            c.setAutoCommit(false);
            int pending = 0;
            for (long k = lo; k < hi; k++) {
                upsert.setLong(1, k);
                upsert.setString(2, v(k));
                upsert.setString(3, s(k));
                upsert.setLong(4, k);
                upsert.setString(5, p(k));
                upsert.executeUpdate();
                if (++pending == batch) {
                    c.commit();
                    commits++;
                    pending = 0;
                }
            }
            if (pending > 0) {
                c.commit();
                commits++;
            }
        }
        return commits;
    }

    /** Rows of the commit table: transactions past their commit point whose commit cells are not all written. */
    static long commitTableRows(BenchCluster stack) throws Exception {
        TableName name = TableName.valueOf(TxnClientConfig.from(stack.configuration()::get).commitTable());
        long rows = 0;
        try (Table t = stack.hbase().getTable(name);
             ResultScanner scanner = t.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()))) {
            for (Result ignored : scanner) {
                rows++;
            }
        }
        return rows;
    }

    static void awaitCommitTableEmpty(BenchCluster stack, long timeoutNanos) throws Exception {
        long deadline = System.nanoTime() + timeoutNanos;
        long rows;
        while ((rows = commitTableRows(stack)) > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(rows + " commit-table entries still pending after the load");
            }
            Thread.sleep(200);
        }
    }

    /** Flushes the table's memstores so builds read store files, not memory. */
    static void flush(BenchCluster stack, String table) throws Exception {
        try (Admin admin = stack.hbase().getAdmin()) {
            admin.flush(TableName.valueOf(table));
        }
    }

    /**
     * Phoenix's statistics of a table (guideposts every GUIDE_POSTS_WIDTH bytes), as a major compaction would collect
     * them: both builds plan their parallel scans by them. Returns the number of guideposts.
     */
    static long collectStatistics(BenchCluster stack, String table) throws SQLException {
        try (Connection c = stack.connect(); Statement s = c.createStatement()) {
            s.execute("UPDATE STATISTICS " + table);
            // Phoenix collects in the background by default (phoenix.update.stats.command.async) and has already
            // cleared the client's statistics cache: wait until the rows are there and their count stays put, then
            // clear that cache entry again so the builds read them.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
            long seen = -1;
            long now = statisticsRows(s, table);
            while (now == 0 || now != seen) {
                if (System.nanoTime() > deadline) {
                    throw new SQLException("statistics of " + table + " still being collected after 10 minutes");
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted", e);
                }
                seen = now;
                now = statisticsRows(s, table);
            }
            c.unwrap(org.apache.phoenix.jdbc.PhoenixConnection.class).getQueryServices().invalidateStats(
                    new org.apache.phoenix.schema.stats.GuidePostsKey(org.apache.hadoop.hbase.util.Bytes.toBytes(table),
                            org.apache.phoenix.query.QueryConstants.DEFAULT_COLUMN_FAMILY_BYTES));
            return now;
        }
    }

    private static long statisticsRows(Statement s, String table) throws SQLException {
        try (java.sql.ResultSet r = s.executeQuery("SELECT COUNT(*) FROM SYSTEM.STATS WHERE PHYSICAL_NAME = '"
                + table + "'")) {
            return r.next() ? r.getLong(1) : 0;
        }
    }

    /** Regions and store-file megabytes of a table (after a flush), for the record. */
    static String describe(BenchCluster stack, String table) throws Exception {
        TableName name = TableName.valueOf(table);
        double storeMb = 0;
        int regions = 0;
        int storeFiles = 0;
        StringBuilder perRegion = new StringBuilder();
        try (Admin admin = stack.hbase().getAdmin()) {
            for (ServerName server : admin.getRegionServers()) {
                for (RegionMetrics m : admin.getRegionMetrics(server, name)) {
                    regions++;
                    storeFiles += m.getStoreFileCount();
                    double mb = m.getStoreFileSize().get(Size.Unit.MEGABYTE);
                    storeMb += mb;
                    perRegion.append(perRegion.length() == 0 ? "" : "/").append(String.format("%.0f", mb));
                }
            }
        }
        // Per region too: the builds' parallelism is the regions that hold rows.
        return String.format("%d regions, %d store files, %.0f MB (%s)", regions, storeFiles, storeMb, perRegion);
    }
}
