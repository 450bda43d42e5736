package io.phoenixtxn.it.client;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.ClientFixture;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.phoenixtxn.it.ClientFixture.FAMILY;
import static io.phoenixtxn.it.ClientFixture.QUALIFIER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Randomized concurrent transfers between few accounts (conflicts are frequent) with client-side aborts mixed in,
 * while readers scan all accounts: the total never changes in any snapshot, during or after the run. Bounded by a
 * transfer count, not by time.
 *
 * <p>The same scenario one layer up is {@code jdbc.JdbcBankTransferIT} (through Phoenix and JDBC,
 * with a transfer log): this one isolates the protocol of the HBase client and the region observer.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BankTransferIT {
    private static final int ACCOUNTS = 12;
    private static final long INITIAL = 1_000;
    private static final int WRITERS = 4;
    private static final int TRANSFERS_PER_WRITER = 60;

    @Test
    void totalBalanceIsInvariantInEverySnapshot() throws Exception {
        try (TxnClient client = ClientFixture.client(TxnClientConfig.PostCommitMode.ASYNC);
             TransactionalTable table = client.table(ClientFixture.createTable("BANK"))) {
            Transaction setup = client.begin();
            for (int i = 0; i < ACCOUNTS; i++) {
                ClientFixture.writeLong(table, setup, account(i), INITIAL);
            }
            client.commit(setup);

            AtomicInteger committed = new AtomicInteger();
            AtomicInteger aborted = new AtomicInteger();
            AtomicInteger snapshotsChecked = new AtomicInteger();
            AtomicBoolean writersDone = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 2);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                writers.add(pool.submit(() -> {
                    for (int t = 0; t < TRANSFERS_PER_WRITER; t++) {
                        transfer(client, table, committed, aborted);
                    }
                    return null;
                }));
            }
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    while (!writersDone.get()) {
                        assertEquals(ACCOUNTS * INITIAL, total(client, table));
                        snapshotsChecked.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : writers) {
                f.get();
            }
            writersDone.set(true);
            for (Future<?> f : readers) {
                f.get();
            }
            pool.shutdown();
            assertEquals(ACCOUNTS * INITIAL, total(client, table));
            assertTrue(committed.get() > 0, "some transfers committed");
            assertTrue(aborted.get() > 0, "conflicts or client aborts happened: the run exercised aborts");
            assertTrue(snapshotsChecked.get() > 0);
            System.out.printf("bank: %d committed, %d aborted, %d snapshots checked%n", committed.get(),
                    aborted.get(), snapshotsChecked.get());
        }
    }

    private static void transfer(TxnClient client, TransactionalTable table, AtomicInteger committed,
                                 AtomicInteger aborted) throws IOException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int from = random.nextInt(ACCOUNTS);
        int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
        long amount = 1 + random.nextInt(50);
        Transaction tx = client.begin();
        long a = ClientFixture.readLong(table, tx, account(from));
        long b = ClientFixture.readLong(table, tx, account(to));
        ClientFixture.writeLong(table, tx, account(from), a - amount);
        ClientFixture.writeLong(table, tx, account(to), b + amount);
        if (random.nextInt(10) == 0) {
            client.abort(tx); // a client-side abort after writing
            aborted.incrementAndGet();
            return;
        }
        try {
            client.commit(tx);
            committed.incrementAndGet();
        } catch (TxnAbortedException e) {
            aborted.incrementAndGet();
        }
    }

    private static long total(TxnClient client, TransactionalTable table) throws IOException {
        Transaction tx = client.begin();
        long sum = 0;
        int rows = 0;
        try (ResultScanner scanner = table.getScanner(tx, new Scan().addColumn(FAMILY, QUALIFIER))) {
            for (Result r : scanner) {
                sum += Bytes.toLong(r.getValue(FAMILY, QUALIFIER));
                rows++;
            }
        }
        client.commit(tx);
        assertEquals(ACCOUNTS, rows);
        return sum;
    }

    private static String account(int i) {
        return String.format("acct%03d", i);
    }
}
