package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.phoenixtxn.it.jdbc.Sql.longOf;
import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent transfers over JDBC, one connection per thread: each reads two balances, moves money if the source
 * can pay, and logs the transfer in a second table, all in one transaction. Readers check in every snapshot that
 * the total never changes (a server-side SUM and a client-side scan agree) and that every balance equals its
 * initial value plus the logged transfers. Bounded by a number of attempts per writer, not by time.
 *
 * <p>The same scenario one layer down is {@code client.BankTransferIT} (the HBase client used
 * directly, no Phoenix): this one adds Phoenix's statement execution, its metadata and the provider in between.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JdbcBankTransferIT {
    private static final int ACCOUNTS = 8;
    private static final long INITIAL = 100;
    private static final int WRITERS = 4;
    private static final int ATTEMPTS_PER_WRITER = 40;
    private static final int READERS = 2;
    private static final int MAX_READS = 5_000;

    @BeforeAll
    static void stack() {
        SharedStack.get();
    }

    @Test
    void totalBalanceAndLedgerHoldInEverySnapshot() throws Exception {
        String acct = Sql.createTable("ACCT", "ID BIGINT PRIMARY KEY, BAL BIGINT");
        String log = Sql.createTable("XFER", "ID VARCHAR PRIMARY KEY, SRC BIGINT, DST BIGINT, AMT BIGINT");
        try (Connection c = open(false)) {
            for (int i = 0; i < ACCOUNTS; i++) {
                update(c, "UPSERT INTO " + acct + " VALUES (" + i + ", " + INITIAL + ")");
            }
            c.commit();
        }
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        AtomicInteger declined = new AtomicInteger();
        AtomicInteger snapshots = new AtomicInteger();
        AtomicBoolean writersDone = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    try (Connection c = open(false)) {
                        start.await();
                        for (int a = 0; a < ATTEMPTS_PER_WRITER; a++) {
                            transfer(c, acct, log, writer + "-" + a, committed, conflicts, declined);
                        }
                    }
                    return null;
                }));
            }
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++) {
                readers.add(pool.submit(() -> {
                    try (Connection c = open(false)) {
                        start.await();
                        for (int i = 0; i < MAX_READS && !writersDone.get(); i++) {
                            checkSnapshot(c, acct, log);
                            c.commit();
                            snapshots.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : writers) {
                f.get(150, TimeUnit.SECONDS);
            }
            writersDone.set(true);
            for (Future<?> f : readers) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = open(false)) {
            checkSnapshot(c, acct, log);
            assertEquals(committed.get(), longOf(c, "SELECT COUNT(*) FROM " + log), "one log row per commit");
        }
        System.out.printf("jdbc bank: %d committed, %d conflicts, %d declined, %d snapshots checked%n",
                committed.get(), conflicts.get(), declined.get(), snapshots.get());
        assertEquals(WRITERS * ATTEMPTS_PER_WRITER, committed.get() + conflicts.get() + declined.get());
        assertTrue(committed.get() > 0, "some transfers committed");
        assertTrue(conflicts.get() > 0, "the run exercised conflicts (" + committed.get() + " committed)");
        assertTrue(snapshots.get() > 0, "readers checked snapshots while writers ran");
    }

    private static void transfer(Connection c, String acct, String log, String id, AtomicInteger committed,
                                 AtomicInteger conflicts, AtomicInteger declined) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int from = random.nextInt(ACCOUNTS);
        int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
        long amount = 1 + random.nextInt(30);
        long a = longOf(c, "SELECT BAL FROM " + acct + " WHERE ID = " + from);
        long b = longOf(c, "SELECT BAL FROM " + acct + " WHERE ID = " + to);
        if (a < amount) {
            c.rollback();
            declined.incrementAndGet();
            return;
        }
        update(c, "UPSERT INTO " + acct + " VALUES (" + from + ", " + (a - amount) + ")");
        update(c, "UPSERT INTO " + acct + " VALUES (" + to + ", " + (b + amount) + ")");
        update(c, "UPSERT INTO " + log + " VALUES ('" + id + "', " + from + ", " + to + ", " + amount + ")");
        try {
            c.commit();
            committed.incrementAndGet();
        } catch (SQLException e) {
            if (e.getErrorCode() != 523) {
                throw e;
            }
            conflicts.incrementAndGet();
        }
    }

    /** Everything one snapshot must satisfy; runs in the connection's current transaction. */
    private static void checkSnapshot(Connection c, String acct, String log) throws SQLException {
        assertEquals(ACCOUNTS * INITIAL, longOf(c, "SELECT SUM(BAL) FROM " + acct), "server-side SUM");
        Map<Long, Long> balances = Sql.pairs(c, "SELECT ID, BAL FROM " + acct);
        assertEquals(ACCOUNTS, balances.size());
        assertEquals(ACCOUNTS * INITIAL, balances.values().stream().mapToLong(Long::longValue).sum(), "scan");
        Map<Long, Long> out = Sql.pairs(c, "SELECT SRC, SUM(AMT) FROM " + log + " GROUP BY SRC");
        Map<Long, Long> in = Sql.pairs(c, "SELECT DST, SUM(AMT) FROM " + log + " GROUP BY DST");
        for (Map.Entry<Long, Long> account : balances.entrySet()) {
            long expected = INITIAL + in.getOrDefault(account.getKey(), 0L) - out.getOrDefault(account.getKey(), 0L);
            assertEquals(expected, account.getValue(), "ledger of account " + account.getKey());
            assertTrue(account.getValue() >= 0, "no account is overdrawn");
        }
    }
}
