package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * The standalone TM server ({@code bin/tm-server}). Settings come from an hbase-site.xml-style file
 * ({@code -c FILE}) and {@code -Dkey=value} arguments, which win. With a ZooKeeper quorum configured
 * ({@link HaConfig#ZK_QUORUM}, or HBase's {@value HaConfig#HBASE_QUORUM}) it runs as an HA primary/backup
 * ({@link TmHaService}); without one it serves a single in-memory TM. SIGTERM shuts it down cleanly: the primary
 * stops deciding and releases its lease, so a backup takes over at once.
 *
 * <p>Status goes to standard output line by line (the server needs no logging backend to be observable).
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
        if (!haConfig.isEnabled()) {
            TransactionManagerCore tm = TransactionManagerCore.startInMemory(tmConfig);
            TmServer server = TmServer.start(tm, serverConfig);
            out.println("tm-server: serving at " + server.address().getHostString() + ":" + server.address().getPort()
                    + " (standalone, in-memory; set " + HaConfig.ZK_QUORUM + " for primary/backup HA)");
            return new Running(() -> {
                server.close();
                tm.close();
            });
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
            service = TmHaService.start(zk, tmConfig, serverConfig, haConfig, HaSeams.defaults().withListener(report));
        } catch (TmException | RuntimeException e) {
            zk.close();
            throw e;
        }
        out.println("tm-server: " + service.holderId() + " contends for primacy at " + haConfig.quorum()
                + haConfig.basePath() + " (lease " + haConfig.leaseMs() + " ms)");
        return new Running(() -> {
            service.close();
            zk.close();
        });
    }

    /** A started server; {@link #close()} stops it once, from any thread. */
    public static final class Running implements AutoCloseable {
        private final Runnable stop;
        private final CountDownLatch closed = new CountDownLatch(1);

        Running(Runnable stop) {
            this.stop = stop;
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
