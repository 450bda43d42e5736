package io.phoenixtxn.it.index;

import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A history check across online CREATE INDEX: read-modify-write transfers between accounts, each logged in a ledger
 * table in the same transaction, run from two Phoenix connection services (two metadata caches, as two JVMs: the
 * one that did not run the DDL gets its fenced transactions replayed by Phoenix) while indexes are created on the
 * accounts table one after another, then two of them dropped. In every snapshot, and at the end, each balance equals
 * its initial value plus the ledger's transfers (a lost update breaks it) and the total never changes; every index
 * left equals its table. Across the DROPs no commit fails for any reason but a conflict (523), and the reader sees
 * only what Phoenix forces, each naming the dropped index, after which its retry reads (issue 16, design 4.10).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class IndexBuildHistoryIT {
    private static final int ACCOUNTS = 6;
    private static final long INITIAL = 1_000;
    private static final int WRITERS_PER_SERVICE = 2;
    private static final int ATTEMPTS_PER_WRITER = 60;
    private static final int INDEXES = 3;
    /** Dropped after all are built: I0 and I1; I2 stays. */
    private static final int DROPPED = 2;

    @Test
    void ledgerAndTotalsHoldAcrossIndexBuildsWithWritersOfTwoConnectionServices() throws Exception {
        String acct = SharedStack.uniqueTable("HACCT");
        String log = SharedStack.uniqueTable("HXFER");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + acct + " (ID BIGINT PRIMARY KEY, BAL BIGINT, NOTE VARCHAR) TRANSACTIONAL=true");
            s.execute("CREATE TABLE " + log + " (ID VARCHAR PRIMARY KEY, SRC BIGINT, DST BIGINT, AMT BIGINT)"
                    + " TRANSACTIONAL=true");
            c.setAutoCommit(false);
            for (int i = 0; i < ACCOUNTS; i++) {
                s.executeUpdate("UPSERT INTO " + acct + " VALUES (" + i + ", " + INITIAL + ", 'a" + i + "')");
            }
            c.commit();
        }
        LedgerBank bank = new LedgerBank(acct, log, ACCOUNTS, INITIAL);
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger aborted = new AtomicInteger();
        AtomicInteger snapshots = new AtomicInteger();
        AtomicBoolean writersDone = new AtomicBoolean();
        AtomicBoolean indexesBuilt = new AtomicBoolean();
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger droppedIndexRetries = new AtomicInteger();
        AtomicInteger droppedIndexCompiles = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2 * WRITERS_PER_SERVICE + 2);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 2 * WRITERS_PER_SERVICE; w++) {
                boolean otherService = w % 2 == 1;
                String prefix = "w" + w + "-";
                writers.add(pool.submit(() -> {
                    try (Connection c = otherService ? SharedStack.connectAsAnotherClient() : SharedStack.connect()) {
                        c.setAutoCommit(false);
                        start.await();
                        // Until every index is built, and at least ATTEMPTS_PER_WRITER transfers each.
                        for (int a = 0; a < ATTEMPTS_PER_WRITER || !indexesBuilt.get(); a++) {
                            attempts.incrementAndGet();
                            if (bank.transfer(c, prefix + a)) {
                                committed.incrementAndGet();
                            } else {
                                aborted.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            Future<?> reader = pool.submit(() -> {
                try (Connection c = SharedStack.connectAsAnotherClient()) {
                    c.setAutoCommit(false);
                    start.await();
                    while (!writersDone.get()) {
                        try {
                            bank.checkSnapshot(c);
                            readThroughAnIndex(c, acct);
                            c.commit();
                            snapshots.incrementAndGet();
                        } catch (SQLException e) {
                            // What Phoenix forces after another service's DROP INDEX, each once and naming the index:
                            // a transaction that began before the DROP plans on the index as of its start (our 523,
                            // "was dropped"); a later one may still find it in this service's cache, and Phoenix's
                            // optimizer fails resolving it (1012) and removes it from the cache. A retry reads.
                            boolean planned = e.getErrorCode() == 523 && e.getMessage().contains("was dropped");
                            boolean compiled = e.getErrorCode() == 1012 && e.getMessage().contains(acct + "_I");
                            if (!planned && !compiled) {
                                throw e;
                            }
                            c.rollback();
                            (planned ? droppedIndexRetries : droppedIndexCompiles).incrementAndGet();
                        }
                    }
                }
                return null;
            });
            Future<?> ddl = pool.submit(() -> {
                start.await();
                try {
                    for (int i = 0; i < INDEXES; i++) {
                        LedgerBank.waitForCommits(committed, 10 * (i + 1));
                        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
                            s.execute("CREATE INDEX " + acct + "_I" + i + " ON " + acct + " (BAL) INCLUDE (NOTE)");
                        }
                    }
                    for (int i = 0; i < DROPPED; i++) {
                        LedgerBank.waitForCommits(committed, 10 * (INDEXES + i + 1));
                        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
                            s.execute("DROP INDEX " + acct + "_I" + i + " ON " + acct);
                        }
                    }
                } finally {
                    indexesBuilt.set(true);
                }
                return null;
            });
            start.countDown();
            ddl.get(240, TimeUnit.SECONDS);
            for (Future<?> f : writers) {
                f.get(240, TimeUnit.SECONDS);
            }
            writersDone.set(true);
            reader.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = SharedStack.connect()) {
            bank.checkSnapshot(c);
            assertEquals(committed.get(), bank.transfers(c), "one ledger row per acknowledged transfer");
        }
        for (int i = DROPPED; i < INDEXES; i++) {
            IndexChecks.assertIndexEqualsTable(acct, acct + "_I" + i, "ID, BAL, NOTE");
        }
        System.out.printf("index-build history: %d committed, %d aborted (523), %d snapshots; after a DROP INDEX %d"
                + " reads retried (523) and %d queries recompiled (1012)%n", committed.get(), aborted.get(),
                snapshots.get(), droppedIndexRetries.get(), droppedIndexCompiles.get());
        assertTrue(droppedIndexRetries.get() + droppedIndexCompiles.get() <= 2 * DROPPED * 2,
                "each DROP forces at most one failure per transaction that planned on it: "
                        + droppedIndexRetries.get() + " + " + droppedIndexCompiles.get());
        assertEquals(attempts.get(), committed.get() + aborted.get());
        assertTrue(snapshots.get() > 0);
    }

    /** A query the optimizer serves from an index on BAL while there is one (covered: ID, BAL). */
    private static void readThroughAnIndex(Connection c, String acct) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT ID, BAL FROM " + acct
                + " WHERE BAL > 0")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            assertTrue(rows <= ACCOUNTS, "rows: " + rows);
        }
    }
}
