package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.TxnSettings;
import io.phoenixtxn.tm.metrics.MetricsSystems;
import io.phoenixtxn.tm.metrics.PrometheusEndpoint;
import io.phoenixtxn.tm.metrics.TmMetrics;
import io.phoenixtxn.tm.metrics.TmMetricsSource;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * The standalone TM server ({@code bin/tm-server}). Settings come from an hbase-site.xml-style file
 * ({@code -c FILE}) and {@code -Dkey=value} arguments, which win. With a ZooKeeper quorum configured
 * ({@link HaConfig#ZK_QUORUM}, or HBase's {@value HaConfig#HBASE_QUORUM}) it runs as an HA primary/backup
 * ({@link TmHaService}); without one it serves a single in-memory TM. SIGTERM shuts it down cleanly: the primary
 * stops deciding and releases its lease, so a backup takes over at once.
 *
 * <p>Status goes to standard output line by line (the server needs no logging backend to be observable). Metrics:
 * one metrics2 source ({@link TmMetricsSource}, in JMX and any metrics2 sink) follows the primary term of this
 * process; with {@code phoenix.txn.tm.metrics.port} set, a Prometheus text endpoint serves them too.
 */
public final class TmServerMain {
    static final String USAGE = "usage: tm-server [-c|--config FILE] [-Dkey=value ...]\n"
            + "  FILE is hbase-site.xml style: <configuration><property><name>..</name><value>..</value>"
            + "</property></configuration>\n"
            + "  HA (primary/backup) runs when " + HaConfig.ZK_QUORUM + " or " + HaConfig.HBASE_QUORUM
            + " is set; otherwise a single in-memory TM serves.";

    private TmServerMain() {
    }

    public static void main(String[] args) {
        Map<String, String> settings;
        try {
            settings = parseArguments(args);
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("tm-server: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        String logFile = System.getProperty("phoenix.txn.log.file");
        if (logFile != null) {
            System.out.println("tm-server: logging to " + logFile);
        }
        Running running;
        try {
            running = start(settings::get, System.out);
        } catch (TmException | IllegalArgumentException e) {
            System.err.println("tm-server: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("tm-server: shutting down");
            running.close();
        }, "tm-server-shutdown"));
        running.awaitClosed();
    }

    /** The settings: the config file's properties, then -D overrides in order. */
    static Map<String, String> parseArguments(String[] args) throws IOException {
        Map<String, String> settings = new HashMap<>();
        Map<String, String> overrides = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-c") || arg.equals("--config")) {
                if (i + 1 == args.length) {
                    throw new IllegalArgumentException(arg + " needs a file name");
                }
                settings.putAll(SiteXml.read(Path.of(args[++i])));
            } else if (arg.startsWith("--config=")) {
                settings.putAll(SiteXml.read(Path.of(arg.substring("--config=".length()))));
            } else if (arg.startsWith("-D") && arg.indexOf('=') > 2) {
                int eq = arg.indexOf('=');
                overrides.put(arg.substring(2, eq), arg.substring(eq + 1));
            } else if (arg.equals("-h") || arg.equals("--help")) {
                throw new IllegalArgumentException("help requested");
            } else {
                throw new IllegalArgumentException("unknown argument '" + arg + "'");
            }
        }
        settings.putAll(overrides);
        return settings;
    }

    /** Starts the server the settings describe and reports its state on {@code out}. */
    public static Running start(Function<String, String> settings, PrintStream out) throws TmException {
        TmConfig tmConfig = TmConfig.from(settings);
        TmServerConfig serverConfig = TmServerConfig.from(settings);
        HaConfig haConfig = HaConfig.from(settings);
        int metricsPort = TxnSettings.TM_METRICS_PORT.get(settings).intValue();
        TmMetrics metrics = new TmMetrics();
        if (!haConfig.isEnabled()) {
            TransactionManagerCore tm = TransactionManagerCore.startInMemory(tmConfig, metrics);
            TmServer server;
            try {
                server = TmServer.start(tm, serverConfig);
            } catch (TmException | RuntimeException e) {
                tm.close();
                throw e;
            }
            out.println("tm-server: serving at " + server.address().getHostString() + ":" + server.address().getPort()
                    + " (standalone, in-memory; set " + HaConfig.ZK_QUORUM + " for primary/backup HA)");
            Exposed exposed;
            try {
                exposed = Exposed.start(new TmMetricsSource(metrics, () -> tm, () -> server), serverConfig.host(),
                        metricsPort, out);
            } catch (TmException e) {
                server.close();
                tm.close();
                throw e;
            }
            return new Running(() -> {
                exposed.close();
                server.close();
                tm.close();
            }, exposed.address());
        }
        CuratorFramework zk = ZooKeeperClients.connectForTm(haConfig);
        HaListener report = new HaListener() {
            @Override
            public void becamePrimary(TmEndpoint endpoint) {
                out.println("tm-server: primary, serving at " + endpoint.address() + " (epoch " + endpoint.epoch()
                        + ")");
            }

            @Override
            public void lostPrimacy(String reason) {
                out.println("tm-server: no longer primary, stopped serving (" + reason + "); back to backup");
            }
        };
        TmHaService service;
        try {
            service = TmHaService.start(zk, tmConfig, serverConfig, haConfig,
                    HaSeams.defaults().withListener(report).withMetrics(metrics));
        } catch (TmException | RuntimeException e) {
            zk.close();
            throw e;
        }
        out.println("tm-server: " + service.holderId() + " contends for primacy at " + haConfig.quorum()
                + haConfig.basePath() + " (lease " + haConfig.leaseMs() + " ms)");
        TmHaService ha = service;
        Exposed exposed;
        try {
            exposed = Exposed.start(new TmMetricsSource(metrics, () -> ha.transactionManager().orElse(null),
                    () -> ha.server().orElse(null)), serverConfig.host(), metricsPort, out);
        } catch (TmException e) {
            service.close();
            zk.close();
            throw e;
        }
        return new Running(() -> {
            exposed.close();
            service.close();
            zk.close();
        }, exposed.address());
    }

    /** The TM's metrics source, registered with the JVM's metrics2 system, and its Prometheus endpoint if asked. */
    private static final class Exposed implements AutoCloseable {
        private final String sourceName;
        private final PrometheusEndpoint endpoint;

        private Exposed(String sourceName, PrometheusEndpoint endpoint) {
            this.sourceName = sourceName;
            this.endpoint = endpoint;
        }

        /** @param port -1: no endpoint; 0: any free port */
        static Exposed start(TmMetricsSource source, String host, int port, PrintStream out) throws TmException {
            String name;
            try {
                name = MetricsSystems.register(TmMetrics.RECORD, "phoenix-txn transaction manager", source);
            } catch (RuntimeException | LinkageError e) {
                if (port >= 0) {
                    throw new TmException("Cannot serve metrics: the metrics2 system failed (" + e + "); unset "
                            + TxnSettings.TM_METRICS_PORT.key() + " to run without them", e);
                }
                out.println("tm-server: metrics are not exposed (" + e + "); the TM serves without them");
                return new Exposed(null, null);
            }
            if (port < 0) {
                return new Exposed(name, null);
            }
            try {
                PrometheusEndpoint endpoint = PrometheusEndpoint.start(host, port);
                out.println("tm-server: metrics at http://" + host + ":" + endpoint.address().getPort() + "/metrics");
                return new Exposed(name, endpoint);
            } catch (IOException | UncheckedIOException e) {
                MetricsSystems.unregister(name);
                throw new TmException(e.getMessage(), e);
            }
        }

        Optional<InetSocketAddress> address() {
            return endpoint == null ? Optional.empty() : Optional.of(endpoint.address());
        }

        @Override
        public void close() {
            if (endpoint != null) {
                endpoint.close();
            }
            if (sourceName != null) {
                MetricsSystems.unregister(sourceName);
            }
        }
    }

    /** A started server; {@link #close()} stops it once, from any thread. */
    public static final class Running implements AutoCloseable {
        private final Runnable stop;
        private final CountDownLatch closed = new CountDownLatch(1);
        private final Optional<InetSocketAddress> metricsAddress;

        Running(Runnable stop, Optional<InetSocketAddress> metricsAddress) {
            this.stop = stop;
            this.metricsAddress = metricsAddress;
        }

        /** Where the Prometheus endpoint listens, if {@code phoenix.txn.tm.metrics.port} asked for one. */
        public Optional<InetSocketAddress> metricsAddress() {
            return metricsAddress;
        }

        public void awaitClosed() {
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public synchronized void close() {
            if (closed.getCount() == 0) {
                return;
            }
            try {
                stop.run();
            } finally {
                closed.countDown();
            }
        }
    }
}
