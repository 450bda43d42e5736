package io.phoenixtxn.bench.workload;

import io.phoenixtxn.coprocessor.GcHorizon;
import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Storage over time (issue 11): the same hot-row workload (updates spread over a few keys, each its own transaction,
 * every tenth rolled back) on a transactional table and on a plain twin, with a flush + major compaction of both
 * every {@code compactEvery} updates, as a region server's periodic compactions would do. The GC horizon is refreshed
 * before each compaction, as the region server's refresher does, and not waited for: the newest updates may still be
 * above it. Reports the store size (store files, after the compaction) of each table and their ratio at each step.
 */
final class StorageOverTime {
    private static final int KEYS = 10;
    private static final int ROLLBACK_EVERY = 10;

    private StorageOverTime() {
    }

    static String header() {
        return "| updates | transactional store bytes | plain store bytes | transactional / plain | load avg |\n"
                + "| --- | --- | --- | --- | --- |";
    }

    static List<String> run(EmbeddedStack stack, int updates, int compactEvery, PrintStream out) throws Exception {
        String tx = "STORAGE_TX_" + updates;
        String plain = "STORAGE_PLAIN_" + updates;
        List<String> rows = new ArrayList<>();
        try (Connection c = stack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + tx + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT) TRANSACTIONAL=true");
            s.execute("CREATE TABLE " + plain + " (K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT)");
            c.setAutoCommit(false);
            SplittableRandom random = new SplittableRandom(11);
            try (PreparedStatement txUpsert = c.prepareStatement("UPSERT INTO " + tx + " VALUES (?, ?, ?)");
                 PreparedStatement plainUpsert = c.prepareStatement("UPSERT INTO " + plain + " VALUES (?, ?, ?)")) {
                for (int i = 1; i <= updates; i++) {
                    long key = random.nextInt(KEYS);
                    String value = "value-" + i + "-" + Long.toHexString(random.nextLong());
                    for (PreparedStatement upsert : new PreparedStatement[] {txUpsert, plainUpsert}) {
                        upsert.setLong(1, key);
                        upsert.setString(2, value);
                        upsert.setLong(3, i);
                        upsert.executeUpdate();
                    }
                    if (i % ROLLBACK_EVERY == 0) {
                        c.rollback(); // the plain table's upsert is rolled back too: both see the same updates
                    } else {
                        c.commit();
                    }
                    if (i % compactEvery == 0 || i == updates) {
                        stack.transactionManager().finished(new long[] {stack.transactionManager().begin()});
                        GcHorizon.refreshNow(); // as the region server's refresher would have by now
                        long txBytes = flushCompactAndMeasure(stack, tx);
                        long plainBytes = flushCompactAndMeasure(stack, plain);
                        String row = String.format("| %,d | %,d | %,d | %.2fx | %s |", i, txBytes, plainBytes,
                                (double) txBytes / plainBytes, LoadAverage.now());
                        out.println(row);
                        rows.add(row);
                    }
                }
            }
        }
        return rows;
    }

    private static long flushCompactAndMeasure(EmbeddedStack stack, String table) throws Exception {
        TableName name = TableName.valueOf(table);
        stack.hbase().flush(name);
        stack.hbase().compact(name, true);
        long bytes = 0;
        for (HRegion region : stack.hbase().getHBaseCluster().getRegions(name)) {
            for (HStore store : region.getStores()) {
                bytes += store.getStorefilesSize();
            }
        }
        return bytes;
    }
}
