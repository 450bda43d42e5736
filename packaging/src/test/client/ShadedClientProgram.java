/*
 * What an application does with phoenix-client-embedded and phoenix-txn's shaded client jar on its classpath and
 * nothing else (ShadedClientIT runs it with java's source launcher, so no jar of ours adds classes to that
 * classpath).
 *
 *   ShadedClientProgram URL transactions [key=value ...]   a TRANSACTIONAL=true table, an upsert committed and read
 *       back from another connection, two transactions writing the same row (the second to commit aborts with SQL
 *       error 523); prints ALL OK when every step behaved
 *   ShadedClientProgram URL refused [key=value ...]        a client the TM must refuse (run after the first mode
 *       made the table): its transaction must fail; prints REFUSED and the error
 *
 * key=value pairs are JDBC connection properties (the TLS keys of the run). Exits 0 only when the mode's
 * expectation held.
 */
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

public class ShadedClientProgram {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        Properties props = new Properties();
        props.setProperty("phoenix.transactions.enabled", "true");
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            props.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        if ("refused".equals(args[1])) {
            refused(url, props);
        } else {
            transactions(url, props);
        }
    }

    private static void refused(String url, Properties props) {
        try (Connection c = DriverManager.getConnection(url, props)) {
            c.setAutoCommit(false);
            c.createStatement().executeUpdate("UPSERT INTO SHADED_T VALUES (99, 'rogue')");
            c.commit();
            System.out.println("FAIL the TM served a client it must refuse");
            System.exit(1);
        } catch (SQLException e) {
            System.out.println("REFUSED " + e.getErrorCode() + " " + e.getMessage().replace('\n', ' '));
            System.exit(0);
        }
    }

    private static void transactions(String url, Properties props) throws Exception {
        try (Connection a = DriverManager.getConnection(url, props);
             Connection b = DriverManager.getConnection(url, props)) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS SHADED_T (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
                s.executeUpdate("UPSERT INTO SHADED_T VALUES (1, 'one')");
            }
            a.commit();
            System.out.println("STEP committed");
            try (ResultSet rs = b.createStatement().executeQuery("SELECT V FROM SHADED_T WHERE K = 1")) {
                if (!rs.next() || !"one".equals(rs.getString(1))) {
                    System.out.println("FAIL read back: the committed row is missing");
                    System.exit(1);
                }
            }
            b.commit();
            System.out.println("STEP read back");
            a.createStatement().executeUpdate("UPSERT INTO SHADED_T VALUES (2, 'a')");
            b.createStatement().executeUpdate("UPSERT INTO SHADED_T VALUES (2, 'b')");
            a.commit();
            try {
                b.commit();
                System.out.println("FAIL conflict: both writers of row 2 committed");
                System.exit(1);
            } catch (SQLException e) {
                if (e.getErrorCode() != 523) {
                    throw e;
                }
                System.out.println("STEP conflict aborted " + e.getErrorCode());
            }
        }
        System.out.println("ALL OK");
        System.exit(0);
    }
}
