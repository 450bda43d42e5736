package io.phoenixtxn.examples;

import io.phoenixtxn.stack.EmbeddedStack;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The README's JDBC example, runnable: {@code JdbcExample [jdbc-url]}. With a URL (for example the one
 * {@code bin/phoenix-txn-stack --serve} prints) it uses that cluster; without one it starts an embedded stack.
 * Moves money between two accounts in transactions, retrying on conflicts (SQL error 523), as an application should.
 */
public final class JdbcExample {
    private static final int CONFLICT = 523;

    private JdbcExample() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            System.out.println("Total after transfers: " + run(args[0]));
            return;
        }
        try (EmbeddedStack stack = EmbeddedStack.start()) {
            System.out.println("Total after transfers: " + run(stack.jdbcUrl()));
        }
        System.exit(0);
    }

    /** Runs the example against {@code url}; returns the total balance afterwards (always 200). */
    public static long run(String url) throws SQLException {
        Properties props = new Properties();
        props.setProperty("phoenix.transactions.enabled", "true"); // Phoenix checks this on the client
        try (Connection c = DriverManager.getConnection(url, props)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS EXAMPLE_ACCT (ID BIGINT PRIMARY KEY, BAL BIGINT)"
                        + " TRANSACTIONAL=true");
                s.executeUpdate("UPSERT INTO EXAMPLE_ACCT VALUES (1, 100)");
                s.executeUpdate("UPSERT INTO EXAMPLE_ACCT VALUES (2, 100)");
            }
            c.commit();
            for (int i = 0; i < 5; i++) {
                transferWithRetry(c, 1, 2, 10);
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT SUM(BAL) FROM EXAMPLE_ACCT")) {
                rs.next();
                long total = rs.getLong(1);
                c.commit();
                return total;
            }
        }
    }

    static void transferWithRetry(Connection c, long from, long to, long amount) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPSERT INTO EXAMPLE_ACCT SELECT ID, BAL - " + amount + " FROM EXAMPLE_ACCT WHERE ID = "
                        + from);
                s.executeUpdate("UPSERT INTO EXAMPLE_ACCT SELECT ID, BAL + " + amount + " FROM EXAMPLE_ACCT WHERE ID = "
                        + to);
                c.commit();
                return;
            } catch (SQLException e) {
                c.rollback();
                if (e.getErrorCode() != CONFLICT || attempt == 5) {
                    throw e;
                }
            }
        }
    }
}
