package io.phoenixtxn.packaging;

import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code mvn package} put into the three artifacts: the shaded jar holds only our packages (third-party code
 * relocated under {@code io.phoenixtxn.shaded}, nothing of HBase, Phoenix or Hadoop) and registers our driver hook;
 * the region-server jar is the same jar; the TM tarball has its layout, no HBase, and its {@code bin/tm-server}
 * serves transactions from {@code lib/} alone.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PackagingContentIT {
    private static final Path TARGET = Path.of(System.getProperty("phoenixtxn.packaging.dir", "target"));
    private static final String VERSION = System.getProperty("phoenixtxn.packaging.version");
    private static final String SHADED = "io/phoenixtxn/shaded/";

    @Test
    void shadedJarHoldsOnlyOurPackages() throws Exception {
        Path jar = TARGET.resolve("phoenix-txn-client-" + VERSION + ".jar");
        List<String> classes;
        try (JarFile file = new JarFile(jar.toFile())) {
            classes = file.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class"))
                    .collect(Collectors.toList());
            assertEquals("io.phoenixtxn.phoenix.PhoenixTxnDriverHook", new String(file.getInputStream(
                    file.getEntry("META-INF/services/java.sql.Driver")).readAllBytes(), StandardCharsets.UTF_8).trim());
            assertTrue(file.getEntry("META-INF/native/libio_phoenixtxn_shaded_netty_transport_native_epoll_x86_64.so")
                    != null, "Netty's epoll library renamed for the relocated Netty");
            assertTrue(file.stream().noneMatch(e -> e.getName().startsWith("META-INF/native/libnetty")));
        }
        List<String> foreign = classes.stream().filter(n -> !n.startsWith("io/phoenixtxn/")).limit(5)
                .collect(Collectors.toList());
        assertEquals(List.of(), foreign, "classes outside io.phoenixtxn would clash with the application's");
        for (String relocated : List.of("org/apache/curator/", "org/apache/zookeeper/", "io/netty/",
                "com/google/common/")) {
            assertTrue(classes.stream().anyMatch(n -> n.startsWith(SHADED + relocated)), relocated);
        }
        for (String provided : List.of("org/apache/hadoop/", "org/apache/phoenix/", "org/apache/hbase/")) {
            assertFalse(classes.stream().anyMatch(n -> n.startsWith(SHADED + provided)),
                    provided + " comes from phoenix-client-embedded or HBase's lib, never from us");
        }
        assertTrue(classes.contains("io/phoenixtxn/coprocessor/SnapshotReadObserver.class"));
        assertEquals(-1L, Files.mismatch(jar, TARGET.resolve("phoenix-txn-server-" + VERSION + ".jar")),
                "the region-server jar is the client jar under its HBase lib/ name");
    }

    @Test
    void tmTarballServesFromItsOwnLib(@TempDir Path dir) throws Exception {
        Path tarball = TARGET.resolve("phoenix-txn-tm-server-" + VERSION + ".tar.gz");
        run(dir, "tar", "-xzf", tarball.toString());
        Path home = dir.resolve("phoenix-txn-tm-server-" + VERSION);
        assertTrue(Files.isExecutable(home.resolve("bin/tm-server")));
        assertTrue(Files.isRegularFile(home.resolve("conf/tm-site.xml")));
        assertTrue(Files.isRegularFile(home.resolve("conf/log4j.properties")));
        List<String> lib;
        try (var jars = Files.list(home.resolve("lib"))) {
            lib = jars.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
        for (String needed : List.of("tm-service-", "snapshot-semantics-", "curator-recipes-", "zookeeper-3.",
                "netty-handler-", "slf4j-reload4j-")) {
            assertTrue(lib.stream().anyMatch(n -> n.startsWith(needed)), needed + " in " + lib);
        }
        // Hadoop only for metrics2 (the TM's metrics): hadoop-common and the two jars it cannot load without.
        assertTrue(lib.stream().noneMatch(n -> n.startsWith("hbase-") || n.startsWith("phoenix-")
                || n.startsWith("hadoop-") && !n.startsWith("hadoop-common-") && !n.startsWith("hadoop-annotations-")
                && !n.startsWith("hadoop-shaded-guava-")), "no HBase on a TM host: " + lib);
        assertTrue(lib.stream().anyMatch(n -> n.startsWith("hadoop-common-")), "metrics2 for the TM: " + lib);

        Process server = new ProcessBuilder("timeout", "120", home.resolve("bin/tm-server").toString(),
                "-Dphoenix.txn.tm.server.port=0").directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            String serving = firstLine(server, "tm-server: serving at ").get(60, TimeUnit.SECONDS);
            String address = serving.substring("tm-server: serving at ".length()).split(" ")[0];
            int colon = address.lastIndexOf(':');
            try (RemoteTransactionManager tm = RemoteTransactionManager.connect(new StaticEndpointResolver(
                    address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))),
                    RemoteTmConfig.defaults())) {
                long txId = tm.begin();
                assertTrue(tm.commit(txId, new long[] {1}, new long[] {1}).isCommitted());
            }
            assertTrue(Files.readString(home.resolve("logs/tm-server.log")).contains("TM server listening"),
                    "the server logs to logs/tm-server.log");
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void run(Path dir, String... command) throws Exception {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " hung");
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + output);
    }

    private static CompletableFuture<String> firstLine(Process process, String prefix) {
        CompletableFuture<String> line = new CompletableFuture<>();
        List<String> seen = new ArrayList<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String next = in.readLine(); next != null; next = in.readLine()) {
                    seen.add(next);
                    if (next.startsWith(prefix)) {
                        line.complete(next);
                    }
                }
                line.completeExceptionally(new IOException("tm-server ended without '" + prefix + "': " + seen));
            } catch (IOException e) {
                line.completeExceptionally(e);
            }
        }, "tm-server-output");
        pump.setDaemon(true);
        pump.start();
        return line;
    }
}
