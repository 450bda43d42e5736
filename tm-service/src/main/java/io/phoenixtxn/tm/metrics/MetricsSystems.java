package io.phoenixtxn.tm.metrics;

import org.apache.hadoop.metrics2.MetricsException;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

/**
 * The JVM's Hadoop metrics2 system, as phoenix-txn joins it: the one a region server or master already runs (HBase
 * started it, prefix {@code HBase}), else one started here with prefix {@value #PREFIX} (a TM server, a client
 * JVM). Sources then show in JMX as {@code Hadoop:service=<prefix>,name=<source>} and reach every configured
 * metrics2 sink ({@code hadoop-metrics2-<prefix>.properties}).
 *
 * <p>Invariant: the system is initialized at most once by us, and never over HBase's (which would rename its
 * prefix); a source name already taken gets a numeric suffix instead of failing the component it measures.
 */
public final class MetricsSystems {
    /** The metrics2 prefix of JVMs where we start the metrics system. */
    public static final String PREFIX = "phoenix-txn";

    private MetricsSystems() {
    }

    /** The running metrics system, started with {@value #PREFIX} if nobody started one in this JVM. */
    public static synchronized MetricsSystem system() {
        if (!running()) {
            DefaultMetricsSystem.initialize(PREFIX);
        }
        return DefaultMetricsSystem.instance();
    }

    /**
     * Registers {@code source} under {@code name} (or {@code name-2}, {@code name-3}.. if taken: several TM servers
     * or clients in one JVM, as tests run them) and answers the name it got.
     */
    public static synchronized String register(String name, String description, MetricsSource source) {
        MetricsSystem system = system();
        for (int n = 1; ; n++) {
            String candidate = n == 1 ? name : name + "-" + n;
            try {
                system.register(candidate, description, source);
                return candidate;
            } catch (MetricsException taken) {
                if (n >= 100) {
                    throw taken;
                }
            }
        }
    }

    /** Removes a source registered by {@link #register}; unknown names are ignored. */
    public static synchronized void unregister(String name) {
        DefaultMetricsSystem.instance().unregisterSource(name);
    }

    /** Whether a metrics system runs in this JVM: it registers its own statistics bean when it starts. */
    private static boolean running() {
        try {
            return !ManagementFactory.getPlatformMBeanServer()
                    .queryNames(new ObjectName("Hadoop:name=MetricsSystem,sub=Stats,*"), null).isEmpty();
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }
}
