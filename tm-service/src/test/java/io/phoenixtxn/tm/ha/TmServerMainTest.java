package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TxnSettings;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TmServerMainTest {

    @Test
    @Timeout(10)
    void readsAnHBaseSiteStyleFileAndLetsDashDOverrideIt(@TempDir Path dir) throws IOException {
        Path site = dir.resolve("tm-site.xml");
        Files.writeString(site, """
                <?xml version="1.0"?>
                <configuration>
                  <property>
                    <name>phoenix.txn.tm.lease.ms</name>
                    <value> 1000 </value>
                    <description>ignored</description>
                  </property>
                  <property><name>hbase.zookeeper.quorum</name><value>zk1,zk2</value></property>
                  <property><name>phoenix.txn.tm.server.port</name><value>1234</value></property>
                </configuration>
                """);
        Map<String, String> settings = TmServerMain.parseArguments(new String[] {
                "-c", site.toString(), "-Dphoenix.txn.tm.server.port=4321", "-Dempty="});
        assertEquals("1000", settings.get(HaConfig.LEASE_MS));
        assertEquals("4321", settings.get(TmServerConfig.PORT), "-D wins over the file");
        assertEquals("", settings.get("empty"));
        assertEquals("zk1:2181,zk2:2181", HaConfig.from(settings::get).quorum());
    }

    @Test
    @Timeout(10)
    void malformedInputIsAClearError(@TempDir Path dir) throws IOException {
        Path notXml = dir.resolve("broken.xml");
        Files.writeString(notXml, "<configuration><property>");
        IOException broken = assertThrows(IOException.class,
                () -> TmServerMain.parseArguments(new String[] {"--config", notXml.toString()}));
        assertTrue(broken.getMessage().contains(notXml.toString()), broken.getMessage());

        Path wrongRoot = dir.resolve("wrong.xml");
        Files.writeString(wrongRoot, "<settings/>");
        IOException root = assertThrows(IOException.class,
                () -> TmServerMain.parseArguments(new String[] {"--config=" + wrongRoot}));
        assertTrue(root.getMessage().contains("<configuration>"), root.getMessage());

        Path withDoctype = dir.resolve("doctype.xml");
        Files.writeString(withDoctype, "<!DOCTYPE configuration [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<configuration><property><name>a</name><value>&x;</value></property></configuration>");
        assertThrows(IOException.class, () -> SiteXml.read(withDoctype), "external entities must be refused");

        assertThrows(IOException.class, () -> TmServerMain.parseArguments(new String[] {"-c",
                dir.resolve("missing.xml").toString()}));
        assertThrows(IllegalArgumentException.class, () -> TmServerMain.parseArguments(new String[] {"--bogus"}));
        assertThrows(IllegalArgumentException.class, () -> TmServerMain.parseArguments(new String[] {"-c"}));
    }

    @Test
    @Timeout(30)
    void withoutAQuorumItServesOneInMemoryTm() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Map<String, String> settings = Map.of(TmServerConfig.HOST, "127.0.0.1", TmServerConfig.PORT, "0");
        try (TmServerMain.Running ignored = TmServerMain.start(settings::get,
                new PrintStream(out, true, StandardCharsets.UTF_8))) {
            String printed = out.toString(StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("serving at ([^ ]+):(\\d+) \\(standalone").matcher(printed);
            assertTrue(m.find(), printed);
            try (Socket socket = new Socket(m.group(1), Integer.parseInt(m.group(2)))) {
                assertTrue(socket.isConnected());
            }
        }
    }

    /**
     * The TM server's Prometheus endpoint answers a scrape with the TM's metrics, after a begin, a commit and a
     * conflict abort sent over the TM protocol.
     */
    @Test
    @Timeout(60)
    void servesPrometheusMetricsWhenAsked() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Map<String, String> settings = Map.of(TmServerConfig.HOST, "127.0.0.1", TmServerConfig.PORT, "0",
                TxnSettings.TM_METRICS_PORT.key(), "0");
        try (TmServerMain.Running running = TmServerMain.start(settings::get,
                new PrintStream(out, true, StandardCharsets.UTF_8))) {
            String printed = out.toString(StandardCharsets.UTF_8);
            Matcher served = Pattern.compile("serving at ([^ ]+):(\\d+) \\(standalone").matcher(printed);
            assertTrue(served.find(), printed);
            assertTrue(printed.contains("metrics at http://127.0.0.1:"), printed);
            InetSocketAddress metrics = running.metricsAddress().orElseThrow();
            try (RemoteTransactionManager tm = RemoteTransactionManager.connect(new StaticEndpointResolver(
                    served.group(1), Integer.parseInt(served.group(2))), RemoteTmConfig.defaults())) {
                long loser = tm.begin();
                long winner = tm.begin();
                assertTrue(tm.commit(winner, new long[] {5}, new long[] {1}).isCommitted());
                assertTrue(!tm.commit(loser, new long[] {5}, new long[] {1}).isCommitted());
            }
            String body = scrape(metrics);
            assertTrue(body.contains("# TYPE phoenix_txn_tm_commits counter"), body);
            assertTrue(Pattern.compile("(?m)^phoenix_txn_tm_commits\\{[^}]*} 1$").matcher(body).find(), body);
            assertTrue(Pattern.compile("(?m)^phoenix_txn_tm_aborts_conflict\\{[^}]*} 1$").matcher(body).find(),
                    body);
            assertTrue(Pattern.compile("(?m)^phoenix_txn_tm_begins\\{[^}]*} 2$").matcher(body).find(), body);
            assertTrue(Pattern.compile("(?m)^phoenix_txn_tm_primary\\{[^}]*} 1$").matcher(body).find(), body);
            assertTrue(body.contains("phoenix_txn_tm_conflict_table_capacity{"), body);
        }
        assertThrows(IOException.class, () -> scrape(metricsAddressOf(out)), "the endpoint closes with the server");
    }

    /** The metrics endpoint printed at start. */
    private static InetSocketAddress metricsAddressOf(ByteArrayOutputStream out) {
        Matcher m = Pattern.compile("metrics at http://([^:]+):(\\d+)/metrics").matcher(
                out.toString(StandardCharsets.UTF_8));
        assertTrue(m.find());
        return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
    }

    static String scrape(InetSocketAddress address) throws IOException {
        HttpURLConnection http = (HttpURLConnection) new URL("http://" + address.getHostString() + ":"
                + address.getPort() + "/metrics").openConnection();
        http.setConnectTimeout(5_000);
        http.setReadTimeout(10_000);
        try {
            assertEquals(200, http.getResponseCode());
            assertTrue(http.getContentType().startsWith("text/plain"), http.getContentType());
            return new String(http.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            http.disconnect();
        }
    }
}
