package io.phoenixtxn.it.fastpath;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.fastpath.BrwcResult;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathFunction;
import io.phoenixtxn.client.fastpath.FastPathInDoubtException;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.client.fastpath.FastPathWriteConflictException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fast-path and regular transactions on shared keys, checked as a history (issue 12): bank accounts whose balances
 * regular transactions move between accounts (read both at a snapshot, write both, commit) while fast-path brwc
 * deposits add 1 to an account's balance and 1 to its deposit count in one atomic write, regular readers read every
 * account at a snapshot and fast-path readers (brc) read one account. Transfers keep the total; deposits are counted
 * beside the balance, so every consistent state satisfies {@code sum(balance) = initial + sum(deposits)}:
 * <ul>
 *   <li>a regular snapshot that breaks it saw a transfer half done, or a deposit's balance without its count;</li>
 *   <li>a transfer that overwrote a balance a deposit committed after the transfer's snapshot (the paper's Figure 3
 *       case, which the region server must abort) leaves a count without its unit of balance, and every later state
 *       breaks it;</li>
 *   <li>at the end the deposit count lies between the acknowledged deposits and those plus the ones in doubt;</li>
 *   <li>each reader's view moves forward: a regular reader's deposit total never falls (a deposit below its snapshot
 *       is below every later one), a fast-path reader's count of one account never falls.</li>
 * </ul>
 * FP transactions relax only real-time order against regular ones (VLDB'18 sec. 2), which none of these checks
 * assumes.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FastPathBankHistoryIT {
    private static final byte[] BALANCE = Bytes.toBytes("bal");
    private static final byte[] DEPOSITS = Bytes.toBytes("dep");
    private static final int ACCOUNTS = 6;
    private static final long INITIAL = 1_000;
    private static final long RUN_MS = 12_000;

    private static FastPathFixture fx;

    @BeforeAll
    static void open() throws IOException {
        fx = FastPathFixture.open();
    }

    @AfterAll
    static void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static byte[] account(int i) {
        return Bytes.toBytes("acct" + i);
    }

    private static long longOf(Result r, byte[] qualifier) {
        byte[] v = r.getValue(FastPathFixture.FAMILY, qualifier);
        return v == null ? 0 : Bytes.toLong(v);
    }

    /** What the run recorded: outcomes by kind, and the first violation each checker saw. */
    private static final class Record {
        final AtomicLong transfersOk = new AtomicLong();
        final AtomicLong transfersAborted = new AtomicLong();
        final AtomicLong transfersUnknown = new AtomicLong();
        final AtomicLong depositsOk = new AtomicLong();
        final AtomicLong depositsFailed = new AtomicLong();
        final AtomicLong depositsUnknown = new AtomicLong();
        final AtomicLong snapshots = new AtomicLong();
        final AtomicLong fastPathReads = new AtomicLong();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

        @Override
        public String toString() {
            return "transfers ok/aborted/unknown " + transfersOk + "/" + transfersAborted + "/" + transfersUnknown
                    + ", deposits ok/failed/unknown " + depositsOk + "/" + depositsFailed + "/" + depositsUnknown
                    + ", snapshots " + snapshots + ", fast-path reads " + fastPathReads;
        }
    }

    /** Balances and deposit counts of every account at one regular snapshot. */
    private static long[][] readAll(TransactionalTable table, Transaction tx) throws IOException {
        long[][] state = new long[2][ACCOUNTS];
        for (int i = 0; i < ACCOUNTS; i++) {
            Result r = table.get(tx, new Get(account(i)));
            state[0][i] = longOf(r, BALANCE);
            state[1][i] = longOf(r, DEPOSITS);
        }
        return state;
    }

    private static String describe(long[][] state) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < ACCOUNTS; i++) {
            out.append(i == 0 ? "" : ", ").append("acct").append(i).append("=").append(state[0][i]).append("/")
                    .append(state[1][i]);
        }
        return out.toString();
    }

    private static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            s += v;
        }
        return s;
    }

    @Test
    void fastPathDepositsAndRegularTransfersOnSharedAccountsKeepEverySnapshotConsistent() throws Exception {
        TableName name = FastPathFixture.createTable("fp_bank");
        Transaction setup = fx.client.begin();
        try (TransactionalTable table = fx.table(name)) {
            for (int i = 0; i < ACCOUNTS; i++) {
                table.put(setup, new Put(account(i)).addColumn(FastPathFixture.FAMILY, BALANCE, Bytes.toBytes(INITIAL))
                        .addColumn(FastPathFixture.FAMILY, DEPOSITS, Bytes.toBytes(0L)));
            }
        }
        fx.client.commit(setup);
        long total = INITIAL * ACCOUNTS;

        Record record = new Record();
        ExecutorService pool = Executors.newFixedThreadPool(7);
        CountDownLatch go = new CountDownLatch(1);
        long deadline = System.currentTimeMillis() + RUN_MS;
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int seed = t;
            workers.add(pool.submit(() -> transfers(name, new Random(seed), record, go, deadline)));
            workers.add(pool.submit(() -> deposits(name, new Random(100 + seed), record, go, deadline)));
            workers.add(pool.submit(() -> regularReader(name, total, record, go, deadline)));
        }
        workers.add(pool.submit(() -> fastPathReader(name, new Random(7), record, go, deadline)));
        go.countDown();
        try {
            for (Future<?> worker : workers) {
                worker.get(RUN_MS + 120_000, TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        Transaction last = fx.client.begin();
        long[][] end;
        try (TransactionalTable table = fx.table(name)) {
            end = readAll(table, last);
        } finally {
            fx.client.commit(last);
        }
        System.out.println("FastPathBankHistoryIT: " + record + "; final " + describe(end));
        assertTrue(record.violations.isEmpty(), record.violations.size() + " violations, first: "
                + record.violations.peek() + "; " + record);
        long deposits = sum(end[1]);
        assertEquals(total + deposits, sum(end[0]), "the final state: " + describe(end));
        assertTrue(deposits >= record.depositsOk.get() && deposits <= record.depositsOk.get()
                + record.depositsUnknown.get(), "deposits counted " + deposits + " against " + record);
        assertTrue(record.transfersOk.get() > 20 && record.depositsOk.get() > 100 && record.snapshots.get() > 20
                && record.fastPathReads.get() > 100, "the run did work: " + record);
        assertTrue(record.transfersAborted.get() > 0, "transfers met concurrent writers (aborts): " + record);
    }

    /** Regular transactions moving 1-5 units between two accounts at their snapshot. */
    private static Void transfers(TableName name, Random random, Record record, CountDownLatch go, long deadline)
            throws Exception {
        go.await();
        try (TransactionalTable table = fx.table(name)) {
            while (System.currentTimeMillis() < deadline) {
                int from = random.nextInt(ACCOUNTS);
                int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                long amount = 1 + random.nextInt(5);
                Transaction tx = fx.client.begin();
                try {
                    long a = longOf(table.get(tx, new Get(account(from))), BALANCE);
                    long b = longOf(table.get(tx, new Get(account(to))), BALANCE);
                    table.put(tx, new Put(account(from)).addColumn(FastPathFixture.FAMILY, BALANCE,
                            Bytes.toBytes(a - amount)));
                    table.put(tx, new Put(account(to)).addColumn(FastPathFixture.FAMILY, BALANCE,
                            Bytes.toBytes(b + amount)));
                    fx.client.commit(tx);
                    record.transfersOk.incrementAndGet();
                } catch (TxnAbortedException | FastPathWriteConflictException e) {
                    fx.client.abort(tx); // known not committed
                    record.transfersAborted.incrementAndGet();
                } catch (IOException e) {
                    record.transfersUnknown.incrementAndGet(); // a transfer keeps the total either way
                }
            }
        }
        return null;
    }

    /** Fast-path brwc deposits: balance + 1 and deposit count + 1 in one write. */
    private static Void deposits(TableName name, Random random, Record record, CountDownLatch go, long deadline)
            throws Exception {
        go.await();
        FastPathFunction deposit = FastPathFunction.increment(FastPathFixture.FAMILY,
                new byte[][] {BALANCE, DEPOSITS}, new long[] {1, 1});
        while (System.currentTimeMillis() < deadline) {
            try {
                BrwcResult r = fx.fastPath.brwcOrRegular(name, account(random.nextInt(ACCOUNTS)), deposit);
                if (r.applied()) {
                    record.depositsOk.incrementAndGet();
                } else {
                    record.violations.add("an increment was not applied: " + r);
                }
            } catch (FastPathInDoubtException e) {
                record.depositsUnknown.incrementAndGet();
            } catch (FastPathAbortedException | TxnAbortedException e) {
                record.depositsFailed.incrementAndGet();
            } catch (IOException e) {
                record.depositsUnknown.incrementAndGet();
            }
        }
        return null;
    }

    /** Regular read-only transactions over every account: the invariant, and a deposit total that never falls. */
    private static Void regularReader(TableName name, long total, Record record, CountDownLatch go, long deadline)
            throws Exception {
        go.await();
        long previousDeposits = -1;
        try (TransactionalTable table = fx.table(name)) {
            while (System.currentTimeMillis() < deadline) {
                Transaction tx = fx.client.begin();
                long[][] state;
                try {
                    state = readAll(table, tx);
                } finally {
                    fx.client.commit(tx);
                }
                record.snapshots.incrementAndGet();
                long deposits = sum(state[1]);
                if (sum(state[0]) != total + deposits) {
                    record.violations.add("snapshot " + tx.txId() + " breaks sum(balance) = " + total
                            + " + sum(deposits): " + describe(state));
                }
                if (deposits < previousDeposits) {
                    record.violations.add("snapshot " + tx.txId() + " sees " + deposits + " deposits after an"
                            + " earlier snapshot of the same reader saw " + previousDeposits);
                }
                previousDeposits = deposits;
            }
        }
        return null;
    }

    /** Fast-path reads (brc) of one account at a time: its deposit count never falls for this reader. */
    private static Void fastPathReader(TableName name, Random random, Record record, CountDownLatch go,
                                       long deadline) throws Exception {
        go.await();
        long[] seen = new long[ACCOUNTS];
        try (FastPathTable fp = fx.fastPathTable(name)) {
            while (System.currentTimeMillis() < deadline) {
                int i = random.nextInt(ACCOUNTS);
                long deposits = longOf(fp.brc(new Get(account(i))), DEPOSITS);
                record.fastPathReads.incrementAndGet();
                if (deposits < seen[i]) {
                    record.violations.add("a fast-path read of acct" + i + " sees " + deposits
                            + " deposits after this reader saw " + seen[i]);
                }
                seen[i] = Math.max(seen[i], deposits);
            }
        }
        return null;
    }
}
