package io.phoenixtxn.admin;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * {@code verify-index TABLE INDEX}: {@link IndexVerifier}'s check (the one the online-index ITs make) in one
 * transaction of its own, so at one snapshot, with its progress lines and a one-line verdict or the first
 * differences. Exit status 0 when the index equals the table, 1 when it differs.
 */
final class VerifyIndexCommand {
    private VerifyIndexCommand() {
    }

    static int run(AdminTarget target, String table, String index, PrintStream out, PrintStream progress)
            throws AdminException {
        target.hbase(); // says whether ZooKeeper or HBase is down before Phoenix retries for minutes
        Properties props = new Properties();
        props.setProperty("phoenix.transactions.enabled", "true");
        target.conf().forEach(e -> {
            if (e.getKey().startsWith("phoenix.") || e.getKey().startsWith("hbase.client.")) {
                props.setProperty(e.getKey(), e.getValue());
            }
        });
        try (Connection c = DriverManager.getConnection(target.jdbcUrl(), props)) {
            c.setAutoCommit(false); // both reads in one transaction: one snapshot
            try {
                return compare(c, table, index, out, progress);
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw new AdminException("verify-index " + table + " " + index + " failed: " + AdminTarget.oneLine(e), e);
        }
    }

    private static int compare(Connection c, String table, String index, PrintStream out, PrintStream progress)
            throws SQLException, AdminException {
        IndexVerifier.Report report = IndexVerifier.verify(c, table, index, progress);
        out.println(report.describe());
        return report.equal() ? 0 : 1;
    }
}
