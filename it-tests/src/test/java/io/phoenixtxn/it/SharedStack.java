package io.phoenixtxn.it;

import io.phoenixtxn.stack.EmbeddedStack;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One embedded stack per test JVM, shared by every IT class (a minicluster plus Phoenix takes ~35 s to start).
 * Started on first use, stopped by a shutdown hook; the failsafe fork timeout is the watchdog if that hangs.
 */
public final class SharedStack {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static volatile EmbeddedStack stack;
    /** Keeps the embedded TM registered for the region servers (see {@link #get()}). */
    private static volatile io.phoenixtxn.tm.discovery.TmHandle guardedTm;

    private SharedStack() {
    }

    public static EmbeddedStack get() {
        EmbeddedStack s = stack;
        if (s != null) {
            return s;
        }
        synchronized (SharedStack.class) {
            if (stack == null) {
                try {
                    stack = EmbeddedStack.start();
                    // The TM as every real client finds it (TmLocator), held for the JVM's life: it registers this
                    // JVM's embedded TM with ZooKeeper, which is what lets the region servers ask it about pending
                    // writers. Client-level ITs use the embedded TM directly; without this they may run before any
                    // JDBC client registered it, and readers would see no TM and force-abort pending writers.
                    guardedTm = io.phoenixtxn.tm.discovery.TmLocator.locate(stack.configuration()::get);
                } catch (Exception e) {
                    throw new IllegalStateException("Could not start the embedded stack", e);
                }
                EmbeddedStack started = stack;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        guardedTm.close();
                        started.close();
                    } catch (Exception ignored) {
                        // the JVM is exiting; the minicluster's files are in target/
                    }
                }, "shared-stack-shutdown"));
            }
            return stack;
        }
    }

    public static Connection connect() throws SQLException {
        return get().connect(routed(new Properties()));
    }

    /**
     * Fast-path routing is on by default (TxnSettings); every connection service of the ITs also turns it on
     * explicitly (a service takes the properties of the connection that creates it), so the ITs run through the lazy
     * begin whatever the default, and PhoenixFastPathRoutingIT finds it on.
     */
    public static Properties routed(Properties props) {
        props.setProperty(io.phoenixtxn.tm.TxnSettings.FASTPATH_ROUTING.key(), "true");
        return props;
    }

    /**
     * A connection through a second Phoenix connection service (same cluster, same TM; the URL names the quorum
     * differently, so Phoenix keys a new service): it has its own metadata cache, as a client in another JVM would.
     */
    public static Connection connectAsAnotherClient() throws SQLException {
        return connectThrough("127.0.0.1", new Properties());
    }

    /**
     * A connection through a third connection service, configured to run UPSERT SELECT on the region servers
     * ({@code phoenix.client.enable.server.upsert.select}, off by default in Phoenix 5.2): index populations of
     * its CREATE INDEX run there.
     */
    public static Connection connectWithServerSideUpsertSelect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("phoenix.client.enable.server.upsert.select", "true");
        return connectThrough("127.0.0.1,localhost", props);
    }

    /**
     * A connection through a connection service of its own for {@code props} (each distinct {@code hosts} form of
     * the quorum, e.g. {@code "localhost,localhost"}, keys one service; the first connection's properties configure
     * it). The forms taken by the methods above are not allowed.
     */
    public static Connection connectThroughOwnService(String hosts, Properties props) throws SQLException {
        if (hosts.equals("127.0.0.1") || hosts.equals("127.0.0.1,localhost") || hosts.equals("localhost,127.0.0.1")) {
            throw new IllegalArgumentException(hosts + " keys a service other tests share");
        }
        return connectThrough(hosts, props);
    }

    private static Connection connectThrough(String quorum, Properties props) throws SQLException {
        Connection c = java.sql.DriverManager.getConnection(get().jdbcUrl().replace("localhost", quorum),
                routed(props));
        if (c.unwrap(org.apache.phoenix.jdbc.PhoenixConnection.class).getQueryServices()
                == connectionServices()) {
            c.close();
            throw new IllegalStateException("Phoenix keyed " + get().jdbcUrl() + " and its " + quorum + " form to"
                    + " one connection service; the test needs separate ones");
        }
        return c;
    }

    private static Object connectionServices() throws SQLException {
        try (Connection c = connect()) {
            return c.unwrap(org.apache.phoenix.jdbc.PhoenixConnection.class).getQueryServices();
        }
    }

    /** A table name no other test uses (tests share one cluster). */
    public static String uniqueTable(String prefix) {
        return prefix.toUpperCase() + "_" + TABLES.incrementAndGet() + "_" + Long.toString(System.nanoTime() % 100000);
    }

    /** Rows of an HBase table as a plain scan sees them: every row with any cell, committed or not. */
    public static long rawRows(String table) throws java.io.IOException {
        long rows = 0;
        try (org.apache.hadoop.hbase.client.Table t = get().hbase().getConnection()
                .getTable(org.apache.hadoop.hbase.TableName.valueOf(table));
             org.apache.hadoop.hbase.client.ResultScanner scanner = t.getScanner(
                     new org.apache.hadoop.hbase.client.Scan())) {
            for (org.apache.hadoop.hbase.client.Result ignored : scanner) {
                rows++;
            }
        }
        return rows;
    }
}
