package io.phoenixtxn.tm.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.sink.PrometheusMetricsSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves the JVM's metrics2 sources in Prometheus' text format on {@code http://host:port/metrics} (and
 * {@code /prom}, Hadoop's own path), as Hadoop's {@code PrometheusServlet} does: a scrape publishes every source
 * to Hadoop's {@link PrometheusMetricsSink} now, then writes what the sink holds. The formatting is the sink's;
 * the HTTP server is the JDK's (the TM server has no servlet container).
 *
 * <p>One sink per JVM, registered with the metrics system on first use (a sink cannot be unregistered); endpoints
 * come and go with their TM server.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PrometheusEndpoint.class);
    private static final String SINK_NAME = "phoenix-txn-prometheus";
    private static PrometheusMetricsSink sink;

    private final HttpServer server;
    private final ExecutorService executor;

    private PrometheusEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Listens on {@code host:port} (0: any free port, see {@link #address()}). */
    public static PrometheusEndpoint start(String host, int port) throws IOException {
        MetricsSystem system = MetricsSystems.system();
        PrometheusMetricsSink jvmSink = sink(system);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new IOException("Cannot serve metrics on " + host + ":" + port + " (" + e.getMessage() + "); set "
                    + io.phoenixtxn.tm.TxnSettings.TM_METRICS_PORT.key() + " to a free port, 0 for any, -1 for none",
                    e);
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "phoenix-txn-metrics-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/metrics", exchange -> scrape(exchange, system, jvmSink));
        server.createContext("/prom", exchange -> scrape(exchange, system, jvmSink));
        server.start();
        PrometheusEndpoint endpoint = new PrometheusEndpoint(server, executor);
        LOG.info("Prometheus metrics at http://{}:{}/metrics", host, endpoint.address().getPort());
        return endpoint;
    }

    private static synchronized PrometheusMetricsSink sink(MetricsSystem system) {
        if (sink == null) {
            sink = system.register(SINK_NAME, "Prometheus text endpoint of phoenix-txn", new PrometheusMetricsSink());
        }
        return sink;
    }

    private static void scrape(HttpExchange exchange, MetricsSystem system, PrometheusMetricsSink jvmSink)
            throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            synchronized (PrometheusEndpoint.class) {
                system.publishMetricsNow();
                StringWriter text = new StringWriter();
                jvmSink.writeMetrics(text);
                body = text.toString().getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            if ("HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Metrics scrape failed: {}", e.toString());
            throw e;
        }
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
