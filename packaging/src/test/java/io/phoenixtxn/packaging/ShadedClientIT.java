package io.phoenixtxn.packaging;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shaded client jar in an application: a plain JVM whose classpath is only Phoenix's
 * {@code phoenix-client-embedded}, {@code phoenix-txn-client-VERSION.jar} and a logging binding runs transactions
 * against a served embedded stack (its own JVM, {@code PhoenixTxnStack --serve}, from this module's test
 * classpath), finding the stack's TM through the JDBC URL's ZooKeeper. The TM requires client certificates (mutual
 * TLS, through the shaded jar's relocated Netty): the client with one commits, a second client JVM that trusts the
 * TM but shows no certificate is refused. Every JVM runs under a time limit.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ShadedClientIT {
    private static final Path TARGET = Path.of(System.getProperty("phoenixtxn.packaging.dir", "target"));
    private static final String VERSION = System.getProperty("phoenixtxn.packaging.version");
    private static final String PASSWORD = "it-store-pass";

    @Test
    void plainJvmWithOnlyTheEmbeddedClientAndOurJarRunsTransactions(@TempDir Path dir) throws Exception {
        Path shaded = TARGET.resolve("phoenix-txn-client-" + VERSION + ".jar");
        assertTrue(Files.isRegularFile(shaded), "mvn package builds " + shaded);
        List<Path> clientLib;
        try (Stream<Path> jars = Files.list(TARGET.resolve("it-client-lib"))) {
            clientLib = jars.sorted().collect(Collectors.toList());
        }
        assertEquals(3, clientLib.size(), "phoenix-client-embedded, slf4j-reload4j, reload4j: " + clientLib);
        List<String> classpath = new ArrayList<>();
        clientLib.forEach(jar -> classpath.add(jar.toString()));
        classpath.add(shaded.toString());
        String clientClasspath = String.join(java.io.File.pathSeparator, classpath);

        // Mutual TLS on the TM port (self-signed certificates made now; one trust store holds both).
        Path tmStore = keyPair(dir, "tm");
        Path clientStore = keyPair(dir, "client");
        Path tmPem = exportCertificate(dir, tmStore, "tm");
        Path trust = dir.resolve("trust.p12");
        importCertificate(dir, trust, tmPem, "tm");
        importCertificate(dir, trust, exportCertificate(dir, clientStore, "client"), "client");

        Path serveLog = dir.resolve("serve.log");
        List<String> serveCommand = java(System.getProperty("java.class.path"));
        serveCommand.addAll(List.of("io.phoenixtxn.stack.PhoenixTxnStack", "--serve",
                "-Dphoenix.txn.tm.server.port=0"));
        tlsKeys(tmStore, trust).forEach(key -> serveCommand.add("-D" + key));
        Process serve = new ProcessBuilder(serveCommand).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            String url = awaitLine(serve, serveLog, "SERVING ").get(5, TimeUnit.MINUTES)
                    .substring("SERVING ".length()).trim();

            Path loaded = dir.resolve("classes-loaded.txt");
            List<String> properties = new ArrayList<>(tlsKeys(clientStore, trust));
            String output = runClient(dir, clientClasspath, "transactions", url, properties,
                    "-Xlog:class+load=info:file=" + loaded);
            assertTrue(output.contains("ALL OK") && output.contains("STEP committed")
                    && output.contains("STEP read back") && output.contains("STEP conflict aborted 523"), output);
            // phoenix-client-embedded carries Apache Omid's client; our jar holds the OMID slot, so none of it runs.
            List<String> omid = Files.readAllLines(loaded).stream().filter(l -> l.contains(" org.apache.omid."))
                    .limit(5).collect(Collectors.toList());
            assertEquals(List.of(), omid, "Apache Omid classes were loaded");
            assertTrue(Files.readString(loaded).contains("io.phoenixtxn.shaded.io.netty.handler.ssl.SslHandler"),
                    "the client spoke TLS through the relocated Netty");

            // A client without a certificate (server-only TLS: it trusts the TM, shows nothing) is refused.
            String refused = runClient(dir, clientClasspath, "refused", url, List.of(
                    "phoenix.txn.tm.client.tls.enabled=true", "phoenix.txn.tm.client.tls.trust.file=" + tmPem,
                    "phoenix.txn.tm.discovery.timeout.ms=5000", "phoenix.txn.tm.client.request.timeout.ms=3000"));
            String reason = refused.lines().filter(l -> l.startsWith("REFUSED ")).findFirst().orElse("");
            System.out.println("The client without a certificate: " + reason);
            assertTrue(reason.contains("TLS"), "refused for its missing certificate, not another reason:\n"
                    + refused);
        } finally {
            serve.destroy();
            if (!serve.waitFor(90, TimeUnit.SECONDS)) {
                serve.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Runs the client program in a JVM of its own on {@code classpath}; returns its output once it exited 0. */
    private static String runClient(Path dir, String classpath, String mode, String url, List<String> properties,
                                    String... jvmOptions) throws Exception {
        Path log4j = Files.writeString(dir.resolve("log4j.properties"), "log4j.rootLogger=WARN, console\n"
                + "log4j.appender.console=org.apache.log4j.ConsoleAppender\n"
                + "log4j.appender.console.layout=org.apache.log4j.PatternLayout\n"
                + "log4j.appender.console.layout.ConversionPattern=%p %c{1}: %m%n\n");
        List<String> client = java(classpath);
        client.add(1, "-Dlog4j.configuration=" + log4j.toUri());
        client.addAll(1, Arrays.asList(jvmOptions));
        client.add(System.getProperty("phoenixtxn.packaging.client.program"));
        client.add(url);
        client.add(mode);
        client.addAll(properties);
        Process program = new ProcessBuilder(client).directory(dir.toFile()).redirectErrorStream(true).start();
        Path clientLog = dir.resolve("client-" + mode + ".log");
        CompletableFuture<String> ended = awaitLine(program, clientLog, null);
        boolean exited = program.waitFor(4, TimeUnit.MINUTES);
        if (!exited) {
            program.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        try {
            ended.get(30, TimeUnit.SECONDS); // the pump has copied the last line
        } catch (ExecutionException | TimeoutException e) {
            // reported below with what was copied
        }
        String output = Files.exists(clientLog) ? Files.readString(clientLog) : "";
        assertTrue(exited, "the client JVM (" + mode + ") did not finish in time:\n" + output);
        assertEquals(0, program.exitValue(), "client JVM (" + mode + ") failed:\n" + output);
        return output;
    }

    private static List<String> tlsKeys(Path keyStore, Path trustStore) {
        return List.of("phoenix.txn.tm.tls.enabled=true",
                "phoenix.txn.tm.tls.keystore.location=" + keyStore, "phoenix.txn.tm.tls.keystore.password=" + PASSWORD,
                "phoenix.txn.tm.tls.truststore.location=" + trustStore,
                "phoenix.txn.tm.tls.truststore.password=" + PASSWORD);
    }

    /** A PKCS12 key store with a fresh self-signed EC certificate for loopback (the JDK's keytool). */
    private static Path keyPair(Path dir, String alias) throws Exception {
        Path store = dir.resolve(alias + ".p12");
        keytool(dir, "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=" + alias, "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        return store;
    }

    private static Path exportCertificate(Path dir, Path store, String alias) throws Exception {
        Path pem = dir.resolve(alias + ".pem");
        keytool(dir, "-exportcert", "-rfc", "-alias", alias, "-keystore", store.toString(), "-storepass", PASSWORD,
                "-file", pem.toString());
        return pem;
    }

    private static void importCertificate(Path dir, Path trustStore, Path pem, String alias) throws Exception {
        keytool(dir, "-importcert", "-noprompt", "-alias", alias, "-file", pem.toString(), "-storetype", "PKCS12",
                "-keystore", trustStore.toString(), "-storepass", PASSWORD);
    }

    private static void keytool(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(Arrays.asList(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "keytool hung");
        assertEquals(0, process.exitValue(), "keytool " + args[0] + " failed: " + output);
    }

    /** {@code java} of this JDK with the JDK 17 flags HBase's client needs, and {@code classpath}. */
    private static List<String> java(String classpath) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Properties flags = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(System.getProperty("phoenixtxn.jdk17.flags.file")))) {
            flags.load(in); // etc/jdk17-flags.properties: the flags every JVM of the project runs with
        }
        command.addAll(Arrays.asList(flags.getProperty("jdk17.flags").trim().split("\\s+")));
        command.add("-Xmx768m");
        command.add("-cp");
        command.add(classpath);
        return command;
    }

    /**
     * Copies the process's output to {@code log}; completes with the first line starting with {@code prefix}, or
     * (prefix null) at the end of the output.
     */
    private static CompletableFuture<String> awaitLine(Process process, Path log, String prefix) {
        CompletableFuture<String> line = new CompletableFuture<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String next;
                while ((next = in.readLine()) != null) {
                    Files.writeString(log, next + "\n", StandardCharsets.UTF_8,
                            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                    if (prefix != null && next.startsWith(prefix)) {
                        line.complete(next);
                    }
                }
                if (prefix == null) {
                    line.complete("");
                    return;
                }
                String output = Files.exists(log) ? Files.readString(log) : "";
                line.completeExceptionally(new IOException("the process ended without a line starting with '"
                        + prefix + "'; the end of its output:\n"
                        + output.substring(Math.max(0, output.length() - 6000))));
            } catch (IOException e) {
                line.completeExceptionally(e);
            }
        }, "pump-" + log.getFileName());
        pump.setDaemon(true);
        pump.start();
        return line;
    }
}
