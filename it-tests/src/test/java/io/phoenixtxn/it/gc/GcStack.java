package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.coprocessor.GcHorizon;
import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The embedded stack of the compaction-time GC ITs, in a JVM of their own (failsafe execution {@code gc-its}): its
 * TM starts with a short commit-point lag, every transaction of the JVM is one of these tests' (each finishes its
 * own, as the client will), the region server asks for the GC horizon only when a test says so
 * ({@link #refreshHorizon()}), and HBase compacts only when asked. So horizons, flushes and compactions happen
 * exactly where a test puts them.
 */
final class GcStack {
    static final String OWN_JVM_PROPERTY = "phoenixtxn.it.gc-jvm";
    static final long COMMIT_POINT_LAG_MS = 3_000;
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] Q = Bytes.toBytes("v");
    private static final long WAIT_S = 120;
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static volatile GcStack instance;

    private final EmbeddedStack stack;
    private final TmHandle tmHandle;

    private GcStack(EmbeddedStack stack, TmHandle tmHandle) {
        this.stack = stack;
        this.tmHandle = tmHandle;
    }

    static GcStack get() {
        assumeTrue(Boolean.getBoolean(OWN_JVM_PROPERTY), "the GC ITs run only in their own JVM (failsafe execution"
                + " gc-its, which sets -D" + OWN_JVM_PROPERTY + "=true): they start the JVM's TM with a short"
                + " commit-point lag");
        GcStack s = instance;
        if (s != null) {
            return s;
        }
        synchronized (GcStack.class) {
            if (instance == null) {
                try {
                    EmbeddedStack stack = EmbeddedStack.start(Map.of(
                            TmConfig.COMMIT_POINT_HORIZON_LAG_MS, Long.toString(COMMIT_POINT_LAG_MS),
                            "phoenix.txn.gc.horizon.refresh.ms", Long.toString(TimeUnit.HOURS.toMillis(1)),
                            "hbase.hstore.compaction.min", "1000",
                            "hbase.hstore.compactionThreshold", "1000",
                            "hbase.hstore.blockingStoreFiles", "10000",
                            "hbase.hregion.majorcompaction", "0"));
                    stack.transactionManager(); // the JVM's TM, with the settings above, before anything else
                    // A client's guard on the cluster: the region server then asks this JVM's TM.
                    TmHandle handle = TmLocator.locate(stack.configuration()::get);
                    instance = new GcStack(stack, handle);
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            handle.close();
                            stack.close();
                        } catch (Exception ignored) {
                            // the JVM is exiting
                        }
                    }, "gc-stack-shutdown"));
                } catch (Exception e) {
                    throw new IllegalStateException("Could not start the GC ITs' stack", e);
                }
            }
            return instance;
        }
    }

    EmbeddedStack stack() {
        return stack;
    }

    TransactionManagerCore tm() {
        return stack.transactionManager();
    }

    Connection hbase() throws IOException {
        return stack.hbase().getConnection();
    }

    /** A transactional client whose transactions end at the TM when they end here ({@link Txns}). */
    Txns client(TxnClientConfig config) throws IOException {
        return new Txns(new TxnClient(hbase(), tmHandle, config), tm());
    }

    Txns client() throws IOException {
        return client(TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC)
                .withCleanerIntervalMs(0));
    }

    /** A plain HBase table with one family and our read observer (a table from before GC: no GC observer). */
    TableName createTable(String prefix, UnaryOperator<ColumnFamilyDescriptorBuilder> family) throws IOException {
        return createTable(prefix, family, t -> t);
    }

    /** The same, with table-level settings (a table's values reach its regions' configuration). */
    TableName createTable(String prefix, UnaryOperator<ColumnFamilyDescriptorBuilder> family,
                          UnaryOperator<TableDescriptorBuilder> table) throws IOException {
        TableName name = TableName.valueOf(prefix.toUpperCase() + "_" + TABLES.incrementAndGet());
        try (Admin admin = hbase().getAdmin()) {
            admin.createTable(table.apply(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(family.apply(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                            .setMaxVersions(Integer.MAX_VALUE)).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER)).build());
        }
        return name;
    }

    TableName createTable(String prefix) throws IOException {
        return createTable(prefix, f -> f);
    }

    /** Asks the TM for the horizon now (the region server's own refresher is idle in this JVM). */
    static Horizon refreshHorizon() {
        return GcHorizon.refreshNow();
    }

    /** Refreshes until the region server's GC horizon is above {@code ts} (every transaction below it ended). */
    static Horizon awaitHorizonAbove(long ts) throws InterruptedException {
        return await(() -> {
            Horizon h = refreshHorizon();
            return h.gc() > ts ? h : null;
        }, "the GC horizon to pass " + ts + " (an open transaction below it?)");
    }

    /** Refreshes until the commit-point horizon is above {@code ts}: at least the commit-point lag after the GC one. */
    static Horizon awaitCommitPointSafeAbove(long ts) throws InterruptedException {
        return await(() -> {
            Horizon h = refreshHorizon();
            return h.commitPointSafe() > ts ? h : null;
        }, "the commit-point horizon to pass " + ts);
    }

    /**
     * Waits until no transaction is open at the TM: each test class starts from a horizon no earlier test holds back
     * (Phoenix's server-side code begins transactions the client does not end at the TM yet; their leases run out).
     */
    void awaitNoOpenTransactions() throws InterruptedException {
        await(() -> {
            refreshHorizon(); // the TM drops expired transactions when it computes a horizon
            return tm().openTransactions() == 0 ? Boolean.TRUE : null;
        }, "every transaction to end at the TM (finished, or its lease run out)");
    }

    /** Polls {@code condition} (non-null = met) every 50 ms, failing after two minutes. */
    static <T> T await(CheckedSupplier<T> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (true) {
            T met;
            try {
                met = condition.get();
            } catch (Exception e) {
                throw new AssertionError("while waiting for " + what, e);
            }
            if (met != null) {
                return met;
            }
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(50);
        }
    }

    /** A condition that may throw. */
    @FunctionalInterface
    interface CheckedSupplier<T> {
        T get() throws Exception;
    }

    List<HRegion> regions(TableName name) {
        return stack.hbase().getMiniHBaseCluster().getRegions(name);
    }

    /** Flushes every region of the table through the Admin API and waits until their memstores are empty. */
    void flush(TableName name) throws Exception {
        try (Admin admin = hbase().getAdmin()) {
            admin.flush(name);
        }
        await(() -> regions(name).stream().allMatch(r -> r.getMemStoreDataSize() == 0) ? Boolean.TRUE : null,
                "the flush of " + name);
    }

    /**
     * Major-compacts every region of the table through the Admin API and waits until it finished: every store's
     * files before it are gone (replaced by its output) and no compaction runs.
     */
    void majorCompact(TableName name) throws Exception {
        Map<String, Set<String>> before = storeFiles(name);
        try (Admin admin = hbase().getAdmin()) {
            admin.majorCompact(name);
        }
        await(() -> {
            Map<String, Set<String>> now = storeFiles(name);
            for (Map.Entry<String, Set<String>> store : before.entrySet()) {
                Set<String> current = now.getOrDefault(store.getKey(), Set.of());
                for (String file : store.getValue()) {
                    if (current.contains(file)) {
                        return null;
                    }
                }
            }
            for (HRegion region : regions(name)) {
                if (region.getCompactionState() != org.apache.hadoop.hbase.client.CompactionState.NONE) {
                    return null;
                }
            }
            return Boolean.TRUE;
        }, "the major compaction of " + name);
    }

    /** Store files per region and family. */
    Map<String, Set<String>> storeFiles(TableName name) {
        Map<String, Set<String>> files = new HashMap<>();
        for (HRegion region : regions(name)) {
            for (HStore store : region.getStores()) {
                Set<String> paths = new HashSet<>();
                for (HStoreFile file : store.getStorefiles()) {
                    paths.add(file.getPath().toString());
                }
                files.put(region.getRegionInfo().getEncodedName() + "/" + store.getColumnFamilyName(), paths);
            }
        }
        return files;
    }

    /** Every raw cell of a row (all versions, commit cells, tombstones), as the store holds them. */
    List<Cell> rawCells(TableName name, byte[] row) throws IOException {
        try (Table table = hbase().getTable(name);
             ResultScanner scanner = table.getScanner(new Scan().withStartRow(row).withStopRow(row, true)
                     .readAllVersions().setRaw(true))) {
            List<Cell> cells = new ArrayList<>();
            for (Result r : scanner) {
                cells.addAll(r.listCells());
            }
            return cells;
        }
    }

    /** Every raw cell of the table. */
    long rawCellCount(TableName name) throws IOException {
        try (Table table = hbase().getTable(name);
             ResultScanner scanner = table.getScanner(new Scan().readAllVersions().setRaw(true))) {
            long n = 0;
            for (Result r : scanner) {
                n += r.size();
            }
            return n;
        }
    }

    /** A transaction ended at the TM without committing (its lease ran out). */
    void expire(Transaction tx) throws TmException {
        tm().finished(new long[] {tx.txId()});
    }
}
