package io.phoenixtxn.it.index;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A history check by invariants for ITs that change a table's schema under writers: accounts {@code 0 ..
 * accounts-1} of table {@code acct (ID BIGINT PRIMARY KEY, BAL BIGINT, ...)} and a ledger {@code log (ID VARCHAR
 * PRIMARY KEY, SRC BIGINT, DST BIGINT, AMT BIGINT)}; each transfer is a read-modify-write of two balances logged in
 * the ledger in the same transaction. In every snapshot each balance equals its initial value plus the ledger's
 * transfers (a lost update or a fractured read breaks it) and the total never changes.
 */
public final class LedgerBank {
    private final String acct;
    private final String log;
    private final int accounts;
    private final long initial;

    public LedgerBank(String acct, String log, int accounts, long initial) {
        this.acct = acct;
        this.log = log;
        this.accounts = accounts;
        this.initial = initial;
    }

    /** One read-modify-write transfer, logged; false when it aborted with 523 (the application would retry). */
    public boolean transfer(Connection c, String id) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int from = random.nextInt(accounts);
        int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
        long amount = 1 + random.nextInt(20);
        try {
            long a = balance(c, from);
            long b = balance(c, to);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPSERT INTO " + acct + " (ID, BAL) VALUES (" + from + ", " + (a - amount) + ")");
                s.executeUpdate("UPSERT INTO " + acct + " (ID, BAL) VALUES (" + to + ", " + (b + amount) + ")");
                s.executeUpdate("UPSERT INTO " + log + " VALUES ('" + id + "', " + from + ", " + to + ", " + amount
                        + ")");
            }
            c.commit();
            return true;
        } catch (SQLException e) {
            if (e.getErrorCode() != 523) {
                throw e;
            }
            c.rollback();
            return false;
        }
    }

    /** The invariants in the snapshot of {@code c}'s transaction (the caller commits or rolls back). */
    public void checkSnapshot(Connection c) throws SQLException {
        Map<Long, Long> balances = pairs(c, "SELECT /*+ NO_INDEX */ ID, BAL FROM " + acct + " WHERE ID < " + accounts);
        assertEquals(accounts, balances.size());
        assertEquals(accounts * initial, balances.values().stream().mapToLong(Long::longValue).sum(), "total");
        Map<Long, Long> out = pairs(c, "SELECT SRC, SUM(AMT) FROM " + log + " GROUP BY SRC");
        Map<Long, Long> in = pairs(c, "SELECT DST, SUM(AMT) FROM " + log + " GROUP BY DST");
        for (Map.Entry<Long, Long> account : balances.entrySet()) {
            long expected = initial + in.getOrDefault(account.getKey(), 0L) - out.getOrDefault(account.getKey(), 0L);
            assertEquals(expected, account.getValue(), "ledger of account " + account.getKey()
                    + " (a lost update makes a balance disagree with its transfers)");
        }
    }

    /** Rows in the ledger: one per acknowledged transfer. */
    public long transfers(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + log)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long balance(Connection c, long id) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT BAL FROM " + acct
                + " WHERE ID = " + id)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private static Map<Long, Long> pairs(Connection c, String sql) throws SQLException {
        Map<Long, Long> out = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }

    /** Lets the writers make progress between two schema changes (bounded: the writers finish on their own). */
    public static void waitForCommits(AtomicInteger committed, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (committed.get() < atLeast && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }
}
