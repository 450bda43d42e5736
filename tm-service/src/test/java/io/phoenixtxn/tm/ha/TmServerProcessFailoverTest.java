package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TxnSettings;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.phoenixtxn.tm.ha.HaTestSupport.LEASE_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The primary is a separate JVM started like bin/tm-server (TmServerMain with an XML config file). SIGKILL is a
 * real crash: its socket closes, it stops renewing, and its ZooKeeper session (so its advertisement) outlives it.
 */
@Tag("slow")
class TmServerProcessFailoverTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    /** A TM server child process and what it printed. */
    private static final class ChildTm implements AutoCloseable {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final CompletableFuture<String> primaryLine = new CompletableFuture<>();
        final CompletableFuture<String> metricsLine = new CompletableFuture<>();
        final CompletableFuture<Void> outputEnded = new CompletableFuture<>();

        ChildTm(Path config) throws IOException {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(TmServerMain.class.getName());
            command.add("-c");
            command.add(config.toString());
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        lines.add(line);
                        if (line.contains("tm-server: metrics at http://")) {
                            metricsLine.complete(line);
                        }
                        if (line.contains("tm-server: primary, serving at")) {
                            primaryLine.complete(line);
                        }
                    }
                } catch (IOException e) {
                    // The process went away.
                }
                primaryLine.completeExceptionally(new AssertionError("the TM process ended before becoming"
                        + " primary; it printed: " + lines));
                outputEnded.complete(null);
            }, "child-tm-output");
            reader.setDaemon(true);
            reader.start();
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Path writeConfig(Path dir, String basePath, long leaseMs) throws IOException {
        Map<String, String> values = Map.of(
                HaConfig.ZK_QUORUM, zk.quorum(),
                HaConfig.ZK_PATH, basePath,
                HaConfig.LEASE_MS, Long.toString(leaseMs),
                // Longer than the failover: the dead primary's advertisement outlives it and must be replaced.
                HaConfig.ZK_SESSION_TIMEOUT_MS, "30000",
                HaConfig.ADVERTISED_HOST, "127.0.0.1",
                TmServerConfig.HOST, "127.0.0.1",
                TmServerConfig.PORT, "0",
                TxnSettings.TM_METRICS_PORT.key(), "0");
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        values.forEach((k, v) -> xml.append("  <property><name>").append(k).append("</name><value>").append(v)
                .append("</value></property>\n"));
        xml.append("</configuration>\n");
        Path file = dir.resolve("tm-site.xml");
        Files.writeString(file, xml);
        return file;
    }

    private static TmHaService startBackup(Function<String, String> settings) throws Exception {
        return TmHaService.start(zk.newClient(), HaTestSupport.tmConfig(settings),
                HaTestSupport.serverConfig(settings), HaConfig.from(settings));
    }

    @Test
    @Timeout(120)
    void sigkillOfThePrimaryProcessFailsOverToTheBackup(@TempDir Path dir) throws Exception {
        String base = ZkTestCluster.freshBasePath();
        Function<String, String> settings = zk.settings(base, LEASE_MS);
        try (ChildTm primary = new ChildTm(writeConfig(dir, base, LEASE_MS))) {
            primary.primaryLine.get(60, TimeUnit.SECONDS);
            TmHaService backup = startBackup(settings);
            try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
                long maxBefore = 0;
                for (int i = 0; i < 100; i++) {
                    long tx = client.begin();
                    CommitDecision d = client.commit(tx, new long[] {i}, new long[] {1});
                    maxBefore = Math.max(maxBefore, d.commitTimestamp());
                }
                // The TM server process answers a Prometheus scrape with what it decided.
                Matcher endpoint = Pattern.compile("metrics at http://([^:]+):(\\d+)/metrics")
                        .matcher(primary.metricsLine.get(10, TimeUnit.SECONDS));
                assertTrue(endpoint.find());
                String scraped = TmServerMainTest.scrape(new InetSocketAddress(endpoint.group(1),
                        Integer.parseInt(endpoint.group(2))));
                assertTrue(Pattern.compile("(?m)^phoenix_txn_tm_commits\\{[^}]*} 100$").matcher(scraped).find(),
                        scraped);
                assertTrue(Pattern.compile("(?m)^phoenix_txn_tm_primary\\{[^}]*} 1$").matcher(scraped).find(),
                        scraped);
                long killedAt = System.nanoTime();
                primary.process.destroyForcibly();
                long first = HaTestSupport.beginOnNewPrimary(client, backup, 20_000);
                long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                System.out.printf("HA failover (primary process SIGKILLed -> first BEGIN on the new primary): %d ms"
                        + " with a %d ms lease%n", failoverMs, LEASE_MS);
                assertTrue(first > maxBefore, first + " <= " + maxBefore);
                // The dead primary's session is still alive, yet its advertisement was replaced.
                TmEndpoint advertised = EndpointCodec.decode(zk.newClient().getData()
                        .forPath(HaConfig.from(settings).paths().primary())).orElseThrow();
                assertEquals(backup.endpoint().orElseThrow(), advertised);
                for (int i = 0; i < 100; i++) {
                    HaTestSupport.Decided d = HaTestSupport.runTransaction(client, i, 1);
                    assertTrue(d.startTs() > maxBefore);
                    assertTrue(d.decision().isCommitted(), d.decision().toString());
                }
            } finally {
                backup.close();
            }
        }
    }

    @Test
    @Timeout(120)
    void sigtermStopsThePrimaryCleanlyAndTheBackupTakesOverAtOnce(@TempDir Path dir) throws Exception {
        long leaseMs = 10_000;
        String base = ZkTestCluster.freshBasePath();
        Function<String, String> settings = zk.settings(base, leaseMs);
        try (ChildTm primary = new ChildTm(writeConfig(dir, base, leaseMs))) {
            primary.primaryLine.get(60, TimeUnit.SECONDS);
            TmHaService backup = startBackup(settings);
            try (RemoteTransactionManager client = HaTestSupport.client(settings)) {
                long before = client.begin();
                long stoppedAt = System.nanoTime();
                // SIGTERM through the handle: Process.destroy() would also close the pipe we read its output from.
                primary.process.toHandle().destroy();
                long after = HaTestSupport.beginOnNewPrimary(client, backup, 20_000);
                long handoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
                System.out.printf("HA handover (primary process SIGTERMed -> first BEGIN on the new primary): %d ms"
                        + " with a %d ms lease%n", handoverMs, leaseMs);
                assertTrue(after > before);
                assertTrue(handoverMs < leaseMs / 2, "SIGTERM released the lease, yet the handover took "
                        + handoverMs + " ms");
                assertTrue(primary.process.waitFor(20, TimeUnit.SECONDS), "the TM process did not exit");
                primary.outputEnded.get(10, TimeUnit.SECONDS);
                assertTrue(primary.lines.contains("tm-server: shutting down"), primary.lines.toString());
            } finally {
                backup.close();
            }
        }
    }
}
