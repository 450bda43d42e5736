package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A history check with garbage collection running throughout: transfers between accounts, each logged in the same
 * transaction as a ledger row, and readers that check in every snapshot that the total never changes and that every
 * balance equals its initial value plus its ledger; meanwhile the GC horizon is refreshed and the table flushed and
 * major-compacted every second or so, so GC drops versions under readers that are mid-history. At the end, every
 * acknowledged transfer is in the ledger, and the hot account rows have shrunk.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GcHistoryIT {
    private static final int ACCOUNTS = 5;
    private static final long INITIAL = 1_000;
    private static final int WRITERS = 3;
    private static final int READERS = 2;
    private static final long RUN_MS = 15_000;
    private static final byte[] BALANCE = Bytes.toBytes("b");
    private static final byte[] LEDGER = Bytes.toBytes("l");

    private static GcStack stack;
    private static Txns txns;
    private static TableName name;

    @BeforeAll
    static void setUp() throws Exception {
        stack = GcStack.get();
        txns = stack.client();
        name = stack.createTable("GCHIST");
        try (TransactionalTable table = txns.table(name)) {
            Transaction setup = txns.begin();
            for (int a = 0; a < ACCOUNTS; a++) {
                table.put(setup, new Put(account(a)).addColumn(GcStack.FAMILY, BALANCE, Bytes.toBytes(INITIAL)));
            }
            txns.commit(setup);
        }
    }

    @AfterAll
    static void tearDown() {
        if (txns != null) {
            txns.close();
        }
    }

    @Test
    void totalsAndLedgersHoldInEverySnapshotWhileGcRunsUnderTheReaders() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger aborted = new AtomicInteger();
        AtomicInteger snapshots = new AtomicInteger();
        AtomicInteger compactions = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS + 1);
        List<Future<?>> work = new ArrayList<>();
        try {
            for (int w = 0; w < WRITERS; w++) {
                String prefix = "w" + w + "-";
                work.add(pool.submit(() -> {
                    try (TransactionalTable table = txns.table(name)) {
                        for (int i = 0; !stop.get(); i++) {
                            if (transfer(table, prefix + i)) {
                                committed.incrementAndGet();
                            } else {
                                aborted.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (int r = 0; r < READERS; r++) {
                work.add(pool.submit(() -> {
                    try (TransactionalTable table = txns.table(name)) {
                        while (!stop.get()) {
                            Transaction snapshot = txns.begin();
                            try {
                                checkSnapshot(table, snapshot);
                                snapshots.incrementAndGet();
                            } finally {
                                txns.commit(snapshot);
                            }
                        }
                    }
                    return null;
                }));
            }
            work.add(pool.submit(() -> {
                while (!stop.get()) {
                    GcStack.refreshHorizon();
                    flushAndMajorCompact(stop);
                    compactions.incrementAndGet();
                }
                return null;
            }));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
            while (System.nanoTime() < deadline && work.stream().noneMatch(Future::isDone)) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            stop.set(true);
            for (Future<?> f : work) {
                f.get(60, TimeUnit.SECONDS); // rethrows a reader's or writer's failure
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
        try (TransactionalTable table = txns.table(name)) {
            Transaction last = txns.begin();
            Map<String, long[]> ledger = checkSnapshot(table, last);
            assertEquals(committed.get(), ledger.size(), "one ledger row per acknowledged transfer, no more");
            txns.commit(last);
        }
        System.out.printf("gc history: %d committed, %d aborted, %d snapshots checked, %d compactions%n",
                committed.get(), aborted.get(), snapshots.get(), compactions.get());
        assertTrue(committed.get() > 0 && snapshots.get() > 0 && compactions.get() >= 3,
                "the run exercised transfers, readers and compactions");
    }

    /**
     * A flush and a major compaction of every region, run to completion on this thread (HRegion.flush/compact: the
     * compaction goes through the observers' hooks as a requested one does). The writers keep writing meanwhile.
     */
    private static void flushAndMajorCompact(AtomicBoolean stop) throws Exception {
        for (org.apache.hadoop.hbase.regionserver.HRegion region : stack.regions(name)) {
            if (stop.get()) {
                return;
            }
            region.flush(true);
            region.compact(true);
        }
    }

    /** One read-modify-write transfer and its ledger row; false when it aborted (conflict). */
    private static boolean transfer(TransactionalTable table, String id) throws IOException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int from = random.nextInt(ACCOUNTS);
        int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
        long amount = 1 + random.nextInt(10);
        Transaction tx = txns.begin();
        try {
            long a = balance(table.get(tx, new org.apache.hadoop.hbase.client.Get(account(from))));
            long b = balance(table.get(tx, new org.apache.hadoop.hbase.client.Get(account(to))));
            table.put(tx, new Put(account(from)).addColumn(GcStack.FAMILY, BALANCE, Bytes.toBytes(a - amount)));
            table.put(tx, new Put(account(to)).addColumn(GcStack.FAMILY, BALANCE, Bytes.toBytes(b + amount)));
            table.put(tx, new Put(Bytes.toBytes("x" + id)).addColumn(GcStack.FAMILY, LEDGER,
                    Bytes.toBytes(from + ":" + to + ":" + amount)));
            txns.commit(tx);
            return true;
        } catch (TxnAbortedException e) {
            return false;
        }
    }

    /** Everything one snapshot must satisfy; returns the ledger it saw. */
    private static Map<String, long[]> checkSnapshot(TransactionalTable table, Transaction tx) throws IOException {
        long[] balances = new long[ACCOUNTS];
        Map<String, long[]> ledger = new HashMap<>();
        try (ResultScanner rows = table.getScanner(tx, new Scan())) {
            for (Result row : rows) {
                String key = Bytes.toString(row.getRow());
                if (key.startsWith("a")) {
                    balances[Integer.parseInt(key.substring(1))] = balance(row);
                } else {
                    String[] parts = Bytes.toString(row.getValue(GcStack.FAMILY, LEDGER)).split(":");
                    ledger.put(key, new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                            Long.parseLong(parts[2])});
                }
            }
        }
        long total = 0;
        long[] expected = new long[ACCOUNTS];
        java.util.Arrays.fill(expected, INITIAL);
        for (long[] entry : ledger.values()) {
            expected[(int) entry[0]] -= entry[2];
            expected[(int) entry[1]] += entry[2];
        }
        for (int a = 0; a < ACCOUNTS; a++) {
            total += balances[a];
            assertEquals(expected[a], balances[a], "account " + a + " against its ledger in snapshot " + tx.txId());
        }
        assertEquals(ACCOUNTS * INITIAL, total, "total in snapshot " + tx.txId());
        return ledger;
    }

    private static long balance(Result row) {
        byte[] value = row.getValue(GcStack.FAMILY, BALANCE);
        assertTrue(value != null, "every account is visible in every snapshot");
        return Bytes.toLong(value);
    }

    private static byte[] account(int a) {
        return Bytes.toBytes("a" + a);
    }
}
