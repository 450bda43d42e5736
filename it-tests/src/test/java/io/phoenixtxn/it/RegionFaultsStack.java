package io.phoenixtxn.it;

import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The stack of the ITs that move, split and crash region servers (failsafe execution {@code fastpath-region-its}):
 * one per JVM, shared by its classes, with the balancer off. Its first region server holds meta, Phoenix's system
 * tables and the commit table and is never crashed; the tests take their other servers from {@link #spares()}, which
 * starts new ones where an earlier test crashed one. Stopped by a shutdown hook; the failsafe fork timeout is the
 * watchdog if that hangs.
 */
public final class RegionFaultsStack {
    /** Set only by the failsafe execution: these ITs run nowhere else (they kill servers of their stack). */
    public static final String OWN_JVM_PROPERTY = "phoenixtxn.it.fastpath-regions-jvm";
    private static final long WAIT_MS = 120_000;
    private static final int SPARES = 2;

    private static EmbeddedStack stack;
    /** The TM as clients find it, registered for the region servers' pending-writer questions (see SharedStack). */
    private static TmHandle guardedTm;
    private static ServerName original;

    private RegionFaultsStack() {
    }

    /** Skips the calling class unless it runs in its own JVM, then starts the stack once. */
    public static synchronized EmbeddedStack get(String testClass) throws Exception {
        assumeTrue(Boolean.getBoolean(OWN_JVM_PROPERTY), testClass + " moves, splits and kills region servers and runs"
                + " only in its own JVM (failsafe execution fastpath-region-its, which sets -D" + OWN_JVM_PROPERTY
                + "=true)");
        if (stack == null) {
            EmbeddedStack started = EmbeddedStack.start();
            try {
                prepare(started);
            } catch (Exception | Error e) {
                // nothing half-started stays behind: the next class starts its own stack
                if (guardedTm != null) {
                    guardedTm.close();
                    guardedTm = null;
                }
                started.close();
                throw e;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    guardedTm.close();
                    started.close();
                } catch (Exception ignored) {
                    // the JVM is exiting; the minicluster's files are in target/
                }
            }, "region-faults-stack-shutdown"));
            stack = started;
        }
        return stack;
    }

    /** The guarded TM, Phoenix's system tables and the commit table on the first server, the balancer off. */
    private static void prepare(EmbeddedStack candidate) throws Exception {
        guardedTm = TmLocator.locate(candidate.configuration()::get);
        // Phoenix's system tables and the commit table land on the first server before any other starts. Through
        // a connection service of its own (another form of the quorum): the first connection of a service
        // configures it, and the test classes configure theirs (e.g. the population's page size)
        try (Connection c = java.sql.DriverManager.getConnection(candidate.jdbcUrl().replace("localhost",
                "127.0.0.1")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE REGION_FAULTS_WARM (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("UPSERT INTO REGION_FAULTS_WARM VALUES (1, 'x')");
            c.commit();
        }
        original = RegionServerFaults.liveServers(candidate.hbase()).get(0);
        try (Admin admin = candidate.hbase().getConnection().getAdmin()) {
            admin.balancerSwitch(false, true); // regions stay where the tests put them
        }
    }

    /** The first region server: meta, Phoenix's system tables and the commit table; never crashed by the tests. */
    public static synchronized ServerName original() {
        return original;
    }

    /** Two live region servers other than the original, started here if fewer run, each listed by the master. */
    public static synchronized List<ServerName> spares() throws Exception {
        MiniHBaseCluster cluster = stack.hbase().getMiniHBaseCluster();
        List<ServerName> spares = new ArrayList<>(RegionServerFaults.liveServers(stack.hbase()));
        spares.remove(original);
        while (spares.size() < SPARES) {
            spares.add(cluster.startRegionServer().getRegionServer().getServerName());
        }
        List<ServerName> chosen = List.copyOf(spares.subList(0, SPARES));
        for (ServerName server : chosen) {
            awaitOnlineAtMaster(server);
        }
        return chosen;
    }

    /** A server the master does not list yet is no destination: a move there would pick another server. */
    public static void awaitOnlineAtMaster(ServerName server) throws Exception {
        stack.hbase().waitFor(WAIT_MS, () -> RegionServerFaults.liveServers(stack.hbase()).contains(server)
                && stack.hbase().getMiniHBaseCluster().getMaster().getServerManager().getOnlineServersList()
                .contains(server));
    }
}
