package io.phoenixtxn.stack;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TxnSettings;
import io.phoenixtxn.tm.metrics.TmMetrics;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stack's --serve TM ({@link ServedTm}) on a ZooKeeper of its own (Curator's test server: the TM needs nothing
 * of HBase but ZooKeeper): it becomes this JVM's TM ({@link EmbeddedTm#adopt}) and its metrics2 source, registered
 * in the JVM's JMX, carries the served TM's counters and the server's own gauges: a client connected over the
 * network shows in {@code ConnectedClients}, its begin in {@code Begins}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ServedTmTest {
    private static final long WAIT_S = 60;

    @Test
    void theServedTmsCountersAndServerGaugesReachTheJvmsTmBean() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        try (TestingServer zk = new TestingServer(true)) {
            Configuration conf = new Configuration(false);
            conf.set(TxnSettings.TM_ZK_QUORUM.key(), zk.getConnectString());
            conf.set(TxnSettings.TM_SERVER_PORT.key(), "0");
            try (ServedTm served = ServedTm.start(conf)) {
                assertTrue(EmbeddedTm.isServedHere());
                assertNotNull(EmbeddedTm.served(), "primary once start returns");
                String source = EmbeddedTm.metricsSourceName()
                        .orElseThrow(() -> new AssertionError("the served TM registered no metrics source"));
                assertTrue(source.startsWith(TmMetrics.RECORD), source);
                String[] hostPort = served.address().split(":");
                try (RemoteTransactionManager client = RemoteTransactionManager.connect(
                        new StaticEndpointResolver(hostPort[0], Integer.parseInt(hostPort[1])),
                        RemoteTmConfig.defaults())) {
                    long tx = client.begin();
                    assertTrue(tx > 0);
                    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
                    ObjectName bean = awaitBean(jmx, source);
                    awaitAtLeast(jmx, bean, "ConnectedClients", 1);
                    awaitAtLeast(jmx, bean, "Begins", 1);
                    awaitAtLeast(jmx, bean, "Primary", 1);
                    assertEquals(0L, ((Number) jmx.getAttribute(bean, "RequestQueueDepth")).longValue(),
                            "the server's queue gauge is reported (nothing waits)");
                }
            } finally {
                EmbeddedTm.shutdown();
            }
            assertFalse(EmbeddedTm.metricsSourceName().isPresent(), "removed with the TM");
        }
    }

    private static ObjectName awaitBean(MBeanServer jmx, String source) throws Exception {
        ObjectName pattern = new ObjectName("Hadoop:name=" + source + ",*");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        Set<ObjectName> beans = jmx.queryNames(pattern, null);
        while (beans.isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "no bean of source " + source);
            TimeUnit.MILLISECONDS.sleep(50);
            beans = jmx.queryNames(pattern, null);
        }
        assertEquals(1, beans.size(), beans.toString());
        return beans.iterator().next();
    }

    /** metrics2 refreshes a bean's attributes once a metrics period: wait for the value to show. */
    private static void awaitAtLeast(MBeanServer jmx, ObjectName bean, String attribute, long atLeast)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        Object seen = jmx.getAttribute(bean, attribute);
        while (!(seen instanceof Number) || ((Number) seen).longValue() < atLeast) {
            assertTrue(System.nanoTime() < deadline, bean + " " + attribute + " stayed " + seen + " < " + atLeast);
            TimeUnit.MILLISECONDS.sleep(50);
            seen = jmx.getAttribute(bean, attribute);
        }
    }
}
