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
 * classpath), finding the stack's TM through the JDBC URL's ZooKeeper. Both JVMs run under time limits.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ShadedClientIT {
    private static final Path TARGET = Path.of(System.getProperty("phoenixtxn.packaging.dir", "target"));
    private static final String VERSION = System.getProperty("phoenixtxn.packaging.version");

    @Test
    void plainJvmWithOnlyTheEmbeddedClientAndOurJarRunsTransactions(@TempDir Path dir) throws Exception {
        Path shaded = TARGET.resolve("phoenix-txn-client-" + VERSION + ".jar");
        assertTrue(Files.isRegularFile(shaded), "mvn package builds " + shaded);
        List<Path> clientLib;
        try (Stream<Path> jars = Files.list(TARGET.resolve("it-client-lib"))) {
            clientLib = jars.sorted().collect(Collectors.toList());
        }
        assertEquals(3, clientLib.size(), "phoenix-client-embedded, slf4j-reload4j, reload4j: " + clientLib);

        Path serveLog = dir.resolve("serve.log");
        List<String> serveCommand = java(System.getProperty("java.class.path"));
        serveCommand.addAll(List.of("io.phoenixtxn.stack.PhoenixTxnStack", "--serve",
                "-Dphoenix.txn.tm.server.port=0"));
        Process serve = new ProcessBuilder(serveCommand).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            String url = awaitLine(serve, serveLog, "SERVING ").get(5, TimeUnit.MINUTES)
                    .substring("SERVING ".length()).trim();

            Path log4j = Files.writeString(dir.resolve("log4j.properties"), "log4j.rootLogger=WARN, console\n"
                    + "log4j.appender.console=org.apache.log4j.ConsoleAppender\n"
                    + "log4j.appender.console.layout=org.apache.log4j.PatternLayout\n"
                    + "log4j.appender.console.layout.ConversionPattern=%p %c{1}: %m%n\n");
            List<String> classpath = new ArrayList<>();
            clientLib.forEach(jar -> classpath.add(jar.toString()));
            classpath.add(shaded.toString());
            List<String> client = java(String.join(java.io.File.pathSeparator, classpath));
            client.add(1, "-Dlog4j.configuration=" + log4j.toUri());
            client.add(System.getProperty("phoenixtxn.packaging.client.program"));
            client.add(url);
            Process program = new ProcessBuilder(client).directory(dir.toFile()).redirectErrorStream(true).start();
            Path clientLog = dir.resolve("client.log");
            CompletableFuture<String> done = awaitLine(program, clientLog, "ALL OK");
            boolean exited = program.waitFor(4, TimeUnit.MINUTES);
            if (!exited) {
                program.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            try {
                done.get(30, TimeUnit.SECONDS); // the pump has copied every line once it saw the end
            } catch (ExecutionException | TimeoutException e) {
                // reported below with the output
            }
            String output = Files.readString(clientLog);
            assertTrue(exited, "the client JVM did not finish in time:\n" + output);
            assertEquals(0, program.exitValue(), "client JVM failed:\n" + output);
            assertTrue(done.isDone(), output);
            assertTrue(output.contains("STEP committed") && output.contains("STEP read back")
                    && output.contains("STEP conflict aborted 523"), output);
        } finally {
            serve.destroy();
            if (!serve.waitFor(90, TimeUnit.SECONDS)) {
                serve.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
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

    /** Copies the process's output to {@code log}; completes with the first line starting with {@code prefix}. */
    private static CompletableFuture<String> awaitLine(Process process, Path log, String prefix) {
        CompletableFuture<String> line = new CompletableFuture<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String next;
                while ((next = in.readLine()) != null) {
                    Files.writeString(log, next + "\n", StandardCharsets.UTF_8,
                            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                    if (next.startsWith(prefix)) {
                        line.complete(next);
                    }
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
