package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.metrics.TmMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded stack's TM (the default deployment: Phoenix in mode auto, no TM server) in the JMX of its JVM: a
 * committed transaction and a write-write conflict through Phoenix's JDBC move its {@code PhoenixTxnTm} counters,
 * read from the platform MBean server. The bean lives in HBase's metrics system (the minicluster started it first):
 * {@code Hadoop:service=HBase,name=PhoenixTxnTm}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EmbeddedTmMetricsIT {
    private static final String COLUMNS = "K BIGINT PRIMARY KEY, V VARCHAR";

    @Test
    void commitsAndConflictAbortsThroughPhoenixReachTheEmbeddedTmsJmxBean() throws Exception {
        String t = Sql.createTable("TM_METRICS", COLUMNS);
        TransactionManagerCore tm = SharedStack.get().transactionManager();
        TmMetrics counted = tm.metrics();
        long beginsBefore = counted.begins();
        long commitsBefore = counted.commits();
        long conflictsBefore = counted.aborts(AbortReason.CONFLICT);

        try (Connection loser = open(false); Connection winner = open(false)) {
            update(loser, "UPSERT INTO " + t + " VALUES (1, 'loser')");
            update(winner, "UPSERT INTO " + t + " VALUES (1, 'winner')");
            winner.commit();
            SQLException e = assertThrows(SQLException.class, loser::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
        }
        assertTrue(counted.begins() >= beginsBefore + 2, "begins " + beginsBefore + " -> " + counted.begins());
        assertTrue(counted.commits() >= commitsBefore + 1, "commits " + commitsBefore + " -> " + counted.commits());
        assertEquals(conflictsBefore + 1, counted.aborts(AbortReason.CONFLICT));

        String source = EmbeddedTm.metricsSourceName()
                .orElseThrow(() -> new AssertionError("the embedded TM registered no metrics source"));
        assertTrue(source.startsWith(TmMetrics.RECORD), source);
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName bean = awaitBean(jmx, source);
        assertEquals("HBase", bean.getKeyProperty("service"), "joins the minicluster's metrics system: " + bean);
        awaitAtLeast(jmx, bean, "Begins", beginsBefore + 2);
        awaitAtLeast(jmx, bean, "Commits", commitsBefore + 1);
        awaitAtLeast(jmx, bean, "AbortsConflict", conflictsBefore + 1);
        assertEquals(1, ((Number) jmx.getAttribute(bean, "Primary")).intValue());
    }

    /**
     * The source's bean. HBase restarts its metrics system (its JmxCacheBuster, a few seconds after regions open or
     * close), and every bean is away for that moment: wait for it.
     */
    private static ObjectName awaitBean(MBeanServer jmx, String source) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Set<ObjectName> beans = jmx.queryNames(new ObjectName("Hadoop:name=" + source + ",*"), null);
        while (beans.isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "no bean of source " + source + "; Hadoop beans: "
                    + jmx.queryNames(new ObjectName("Hadoop:*"), null));
            TimeUnit.MILLISECONDS.sleep(100);
            beans = jmx.queryNames(new ObjectName("Hadoop:name=" + source + ",*"), null);
        }
        assertEquals(1, beans.size(), "one bean for the embedded TM: " + beans);
        return beans.iterator().next();
    }

    /**
     * Reads a counter over JMX until it reaches {@code atLeast}: metrics2 refreshes a bean's attributes once a metrics
     * period (10 s by default), so a value fresh from the counters may take that long to show.
     */
    private static void awaitAtLeast(MBeanServer jmx, ObjectName bean, String attribute, long atLeast)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long seen = ((Number) jmx.getAttribute(bean, attribute)).longValue();
        while (seen < atLeast) {
            assertTrue(System.nanoTime() < deadline, bean + " " + attribute + " stayed " + seen + " < " + atLeast);
            TimeUnit.MILLISECONDS.sleep(100);
            seen = ((Number) jmx.getAttribute(bean, attribute)).longValue();
        }
    }
}
