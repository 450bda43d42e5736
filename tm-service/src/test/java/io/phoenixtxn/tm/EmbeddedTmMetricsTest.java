package io.phoenixtxn.tm;

import io.phoenixtxn.tm.metrics.TmMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JVM's embedded TM ({@link EmbeddedTm#shared}, what Phoenix clients in mode auto/embedded and the embedded
 * stack use) shows its metrics in JMX under the names a TM server reports: begins, commits and conflict aborts it
 * decided are read back from the platform MBean server. Its source leaves JMX when it stops, and a TM started after
 * it registers again under the same name, counting from zero.
 *
 * <p>metrics2 serves a bean's attributes from a cache it refreshes once a period (the bean's registration fills it):
 * the reads wait for the expected values, which the test JVMs' short period
 * ({@code hadoop-metrics2-phoenix-txn.properties}: 100 ms) brings quickly; a value that never comes fails the test.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EmbeddedTmMetricsTest {
    private static final long[] TABLE = {0xB};

    @BeforeEach
    @AfterEach
    void noEmbeddedTm() {
        EmbeddedTm.shutdown();
    }

    @Test
    void embeddedTmCountersAppearInJmxAndLeaveWithTheTm() throws Exception {
        TmConfig config = TransactionManagerCoreTest.small(Map.of());
        assertTrue(EmbeddedTm.metricsSourceName().isEmpty(), "no TM runs, no source is registered");

        TransactionManagerCore tm = EmbeddedTm.shared(config);
        String name = EmbeddedTm.metricsSourceName().orElseThrow(() -> new AssertionError("no source registered"));
        assertTrue(name.startsWith(TmMetrics.RECORD), name);
        long loser = tm.begin();
        long winner = tm.begin();
        assertTrue(tm.commit(winner, new long[] {7}, TABLE).isCommitted());
        assertSame(AbortReason.CONFLICT, tm.commit(loser, new long[] {7}, TABLE).abortReason());

        ObjectName bean = bean(name);
        awaitAttribute(bean, "Begins", 2L);
        awaitAttribute(bean, "Commits", 1L);
        awaitAttribute(bean, "AbortsConflict", 1L);
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        assertEquals(0L, jmx.getAttribute(bean, "AbortsFence"));
        assertEquals(1, ((Number) jmx.getAttribute(bean, "Primary")).intValue());
        assertEquals(tm.epochBase(), ((Number) jmx.getAttribute(bean, "Epoch")).longValue());
        assertTrue(((Number) jmx.getAttribute(bean, "ConflictTableOccupied")).longValue() >= 1,
                "the winner's row is in the conflict table");

        EmbeddedTm.shutdown();
        assertTrue(EmbeddedTm.metricsSourceName().isEmpty());
        assertFalse(jmx.isRegistered(bean), "the stopped TM's source is still in JMX: " + bean);

        // A second embedded TM in this JVM: same source name (the first one's was removed), fresh counters.
        TransactionManagerCore second = EmbeddedTm.shared(config);
        assertEquals(name, EmbeddedTm.metricsSourceName().orElse(null));
        second.begin();
        ObjectName again = bean(name);
        awaitAttribute(again, "Begins", 1L);
        assertEquals(0L, jmx.getAttribute(again, "Commits"));
        assertEquals(second.epochBase(), ((Number) jmx.getAttribute(again, "Epoch")).longValue());
    }

    /** Reads {@code attribute} over JMX until it equals {@code expected} (20 s at most: two default periods). */
    private static void awaitAttribute(ObjectName bean, String attribute, Object expected) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Object seen = jmx.getAttribute(bean, attribute);
        while (!expected.equals(seen)) {
            assertTrue(System.nanoTime() < deadline, bean + " " + attribute + " stayed " + seen + ", expected "
                    + expected);
            TimeUnit.MILLISECONDS.sleep(20);
            seen = jmx.getAttribute(bean, attribute);
        }
    }

    /** The one bean of source {@code name}, whichever metrics2 prefix (service) this JVM's system has. */
    private static ObjectName bean(String name) throws Exception {
        Set<ObjectName> found = ManagementFactory.getPlatformMBeanServer()
                .queryNames(new ObjectName("Hadoop:service=*,name=" + name), null);
        assertEquals(1, found.size(), "beans of source " + name + ": " + found);
        return found.iterator().next();
    }
}
