package io.phoenixtxn.stack;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.HaSeams;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.metrics.TmMetrics;
import io.phoenixtxn.tm.metrics.TmMetricsSource;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;

import java.util.concurrent.TimeUnit;

/**
 * The stack's --serve mode: its TM runs as an HA primary on the minicluster's ZooKeeper, with a network server
 * advertised there, so other JVMs (an application, a second sqlline) with our client jar find it through the JDBC
 * URL's ZooKeeper alone; this JVM's Phoenix uses the same TM in process. Its metrics2 source (the names a TM
 * server reports, with its connected clients and request queue) is registered as the JVM's TM metrics.
 */
final class ServedTm implements AutoCloseable {
    private final CuratorFramework zk;
    private final TmHaService service;
    private final TmEndpoint endpoint;

    private ServedTm(CuratorFramework zk, TmHaService service, TmEndpoint endpoint) {
        this.zk = zk;
        this.service = service;
        this.endpoint = endpoint;
    }

    static ServedTm start(EmbeddedStack stack) throws Exception {
        return start(stack.configuration());
    }

    /** Serves a TM on the ZooKeeper that {@code conf} names (the stack's, or a test's own). */
    static ServedTm start(Configuration conf) throws Exception {
        HaConfig ha = HaConfig.from(conf::get);
        if (!ha.isEnabled()) {
            throw new TmException("The stack's configuration names no ZooKeeper quorum to serve the TM on");
        }
        CuratorFramework zk = ZooKeeperClients.connectForTm(ha);
        TmHaService service = null;
        try {
            TmMetrics metrics = new TmMetrics();
            service = TmHaService.start(zk, TmConfig.from(conf::get), TmServerConfig.from(conf::get), ha,
                    HaSeams.defaults().withMetrics(metrics));
            TmEndpoint endpoint = service.awaitPrimary(60, TimeUnit.SECONDS);
            TmHaService served = service;
            EmbeddedTm.adopt(() -> served.transactionManager().orElse(null), new TmMetricsSource(metrics,
                    () -> served.transactionManager().orElse(null), () -> served.server().orElse(null)));
            return new ServedTm(zk, service, endpoint);
        } catch (Exception e) {
            if (service != null) {
                service.close();
            }
            zk.close();
            throw e;
        }
    }

    String address() {
        return endpoint.host() + ":" + endpoint.port();
    }

    @Override
    public void close() {
        try {
            service.close();
        } finally {
            zk.close();
        }
    }
}
