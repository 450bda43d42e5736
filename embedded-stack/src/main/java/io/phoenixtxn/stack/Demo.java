package io.phoenixtxn.stack;

import io.phoenixtxn.phoenix.PhoenixTxnProvider;
import org.apache.phoenix.transaction.TransactionFactory;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The launcher's --demo: a short tour of snapshot isolation through JDBC that checks its own results, so it doubles
 * as a smoke test (exit 0 only when every step behaved).
 */
final class Demo {
    private final EmbeddedStack stack;
    private final PrintStream out;

    Demo(EmbeddedStack stack, PrintStream out) {
        this.stack = stack;
        this.out = out;
    }

    void run() throws SQLException {
        if (!(TransactionFactory.Provider.OMID.getTransactionProvider() instanceof PhoenixTxnProvider)) {
            throw new IllegalStateException("Phoenix's OMID slot does not hold phoenix-txn's provider");
        }
        out.println("Transaction provider in Phoenix's OMID slot: "
                + describe(TransactionFactory.Provider.OMID.getTransactionProvider()));
        try (Connection a = stack.connect(); Connection b = stack.connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS DEMO_ACCOUNTS (ID BIGINT PRIMARY KEY, BALANCE BIGINT)"
                        + " TRANSACTIONAL=true");
                s.executeUpdate("UPSERT INTO DEMO_ACCOUNTS VALUES (1, 100)");
                s.executeUpdate("UPSERT INTO DEMO_ACCOUNTS VALUES (2, 100)");
            }
            a.commit();
            step("two accounts committed", total(a), 200);

            // b's snapshot starts now; a transfer committed later stays invisible to it.
            long before = balance(b, 1);
            try (Statement s = a.createStatement()) {
                s.executeUpdate("UPSERT INTO DEMO_ACCOUNTS SELECT ID, BALANCE - 30 FROM DEMO_ACCOUNTS WHERE ID = 1");
                s.executeUpdate("UPSERT INTO DEMO_ACCOUNTS SELECT ID, BALANCE + 30 FROM DEMO_ACCOUNTS WHERE ID = 2");
            }
            a.commit();
            step("b's snapshot still sees the old balance", balance(b, 1), before);
            step("b's snapshot total is unchanged", total(b), 200);
            b.commit();
            step("a new snapshot sees the transfer", balance(b, 1), 70);

            // Write-write conflict: both update account 2; the second commit fails with code 523.
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.executeUpdate("UPSERT INTO DEMO_ACCOUNTS VALUES (2, 1000)");
                sb.executeUpdate("UPSERT INTO DEMO_ACCOUNTS VALUES (2, 2000)");
                a.commit();
                try {
                    b.commit();
                    throw new IllegalStateException("the second conflicting commit succeeded");
                } catch (SQLException e) {
                    step("conflicting commit fails with error code", e.getErrorCode(), 523);
                    out.println("    " + e.getMessage());
                }
            }
            step("the first writer's value stands", balance(b, 2), 1000);

            try (Statement s = a.createStatement()) {
                s.executeUpdate("DELETE FROM DEMO_ACCOUNTS WHERE ID = 1");
            }
            a.rollback();
            step("rollback leaves account 1 in place", balance(a, 1), 70);
        }
        out.println("Demo finished: every step behaved.");
    }

    private static String describe(Object provider) {
        return provider instanceof PhoenixTxnProvider ? ((PhoenixTxnProvider) provider).describe()
                : "NOT phoenix-txn: " + provider.getClass().getName();
    }

    private void step(String what, long actual, long expected) {
        if (actual != expected) {
            throw new IllegalStateException(what + ": expected " + expected + " but got " + actual);
        }
        out.println("  ok  " + what + ": " + actual);
    }

    private static long balance(Connection c, long id) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT BALANCE FROM DEMO_ACCOUNTS WHERE ID = " + id)) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    private static long total(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT SUM(BALANCE) FROM DEMO_ACCOUNTS")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
