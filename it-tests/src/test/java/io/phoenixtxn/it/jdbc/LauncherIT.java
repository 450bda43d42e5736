package io.phoenixtxn.it.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's non-interactive modes in a separate JVM, exactly as the README runs them (same main class, same
 * JDK flags file): --demo exits 0, and a SQL script through sqlline (CREATE ... TRANSACTIONAL=true, UPSERT,
 * !commit, SELECT) returns the committed row.
 *
 * <p>Its launches (each a JVM with its own minicluster, about 50 s) run two at a time: the methods are CONCURRENT
 * while the class, like every other class of the execution, runs alone (the default execution's JUnit
 * configuration in it-tests/pom.xml: parallel mode on, same_thread by default, parallelism 2).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class LauncherIT {

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void demoModeRunsAndExitsZero(@TempDir Path dir) throws Exception {
        Result r = launch(dir, "--demo");
        assertEquals(0, r.exit, r.output);
        assertTrue(r.output.contains("Demo finished: every step behaved."), r.output);
        assertTrue(r.output.contains("phoenix-txn"), r.output);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void sqlScriptModeRunsTransactionalStatementsThroughSqlline(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("script.sql");
        Files.writeString(script, String.join("\n",
                "CREATE TABLE T (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true;",
                "UPSERT INTO T VALUES (1, 'committed-through-sqlline');",
                "!commit",
                "UPSERT INTO T VALUES (2, 'rolled-back');",
                "!rollback",
                "SELECT K, V FROM T;",
                "SELEC K FROM T;",
                ""));
        Result r = launch(dir, "--sql", script.toString());
        assertEquals(2, r.exit, "the mistyped last statement fails the script: " + r.output);
        assertTrue(r.output.contains("committed-through-sqlline"), r.output);
        assertTrue(!r.output.contains("| 2 "), r.output);
        assertTrue(r.output.contains("ERROR 601"), "the error, in one line: " + r.output);
        assertTrue(r.output.lines().noneMatch(l -> l.startsWith("\tat ") || l.contains("PhoenixParserException")),
                "no stack trace (sqlline prints one for every error of a start-up script): " + r.output);
        assertTrue(Files.readString(r.logFile, StandardCharsets.UTF_8).contains("ProviderSlot"),
                "the launcher's own lines went to its log file");
    }

    /**
     * README's first command as bin/phoenix-txn-stack runs it: the launcher's own logging configuration
     * (conf/phoenix-txn-log4j.properties) and log file, sqlline on the stack, statements typed in (here from a file on its standard input),
     * one of them mistyped. The console shows the log file's path, start-up progress, the query's result and the
     * mistyped statement's error on one line; no WARN line of HBase, Hadoop, ZooKeeper or Phoenix (nor any other
     * log4j WARN or ERROR line) and no stack trace. Those lines are in the log file.
     */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theReadmesFirstCommandShowsACleanConsole(@TempDir Path dir) throws Exception {
        Path logFile = dir.resolve("logs").resolve("phoenix-txn-stack.log");
        Files.createDirectories(logFile.getParent());
        Path typed = dir.resolve("typed.sql");
        Files.writeString(typed, String.join("\n",
                "CREATE TABLE T (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true;",
                "UPSRT INTO T VALUES (1, 'mistyped');",
                "UPSERT INTO T VALUES (1, 'hello');",
                "!commit",
                "!set outputformat csv",
                "SELECT * FROM T;",
                "!quit",
                ""));
        List<String> command = command(dir, readmeLogging(logFile));
        Path console = dir.resolve("console.txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(typed.toFile()).redirectOutput(console.toFile()).start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String output = Files.readString(console, StandardCharsets.UTF_8);
        assertTrue(done, "the launcher ends when its input does:\n" + output);
        List<String> lines = output.lines().toList();

        assertTrue(lines.contains("Logging to " + logFile), output);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("Starting HBase minicluster")), output);
        assertTrue(lines.stream().anyMatch(l -> l.trim().startsWith("Phoenix ready")), output);
        assertTrue(lines.stream().anyMatch(l -> l.endsWith("'1','hello'")),
                "the committed row is shown:\n" + output);

        // Any log4j WARN line, and ERROR lines as log4j prints them (time first; sqlline's own start "Error:").
        List<String> logged = lines.stream().filter(l -> l.matches(".*\\bWARN\\b.*")
                || l.matches("^\\d\\d:\\d\\d:\\d\\d\\S*\\s+ERROR\\b.*")).toList();
        assertFalse(output.contains("WARNING:"), "no java.util.logging warning (JLine's, without a terminal):\n"
                + output);
        assertEquals(List.of(), logged, "log4j WARN/ERROR lines on the console (the stack stopping included):\n"
                + output);
        List<String> errors = lines.stream().filter(l -> l.contains("ERROR 601")).toList();
        assertEquals(1, errors.size(), "the mistyped statement's error, once:\n" + output);
        assertTrue(errors.get(0).contains("UPSRT"), errors.get(0));
        assertEquals(List.of(), lines.stream().filter(l -> l.matches("^\\s+at .*|^Caused by: .*")).toList(),
                "no stack trace on the console:\n" + output);

        assertTrue(Files.isRegularFile(logFile), logFile.toString());
        String log = Files.readString(logFile, StandardCharsets.UTF_8);
        assertTrue(log.lines().anyMatch(l -> l.contains(" WARN ") && l.contains("org.apache.hadoop")),
                "HBase's and Hadoop's warnings went to the log file");
    }

    /**
     * --serve keeps the stack up and serves its TM; this JVM connects as "another JVM" would (mode remote, so it
     * cannot fall back to its own embedded TM): the TM found through the JDBC URL's ZooKeeper decides its commits,
     * including a write-write conflict. SIGTERM then stops the server cleanly.
     */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void serveModeServesTransactionsOfOtherJvms(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("serve.log");
        Process serve = new ProcessBuilder(command(dir, "--serve", "-Dphoenix.txn.tm.server.port=0"))
                .directory(dir.toFile()).redirectErrorStream(true).start();
        CompletableFuture<String> served = watchOutput(serve, log, "SERVING ");
        try {
            String url = served.get(4, TimeUnit.MINUTES).substring("SERVING ".length()).trim();
            Properties props = new Properties();
            props.setProperty("phoenix.transactions.enabled", "true");
            props.setProperty("phoenix.txn.tm.mode", "remote");
            try (Connection a = DriverManager.getConnection(url, props);
                 Connection b = DriverManager.getConnection(url, props)) {
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                a.createStatement().execute("CREATE TABLE SERVED (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
                a.createStatement().executeUpdate("UPSERT INTO SERVED VALUES (1, 'a')");
                b.createStatement().executeUpdate("UPSERT INTO SERVED VALUES (1, 'b')");
                a.commit();
                SQLException conflict = assertThrows(SQLException.class, b::commit);
                assertEquals(523, conflict.getErrorCode());
                try (ResultSet rs = b.createStatement().executeQuery("SELECT V FROM SERVED WHERE K = 1")) {
                    assertTrue(rs.next());
                    assertEquals("a", rs.getString(1));
                }
            }
            assertTrue(Files.readString(log).contains("SERVING"), "served");
        } finally {
            serve.destroy(); // SIGTERM
            boolean exited = serve.waitFor(90, TimeUnit.SECONDS);
            if (!exited) {
                serve.destroyForcibly();
            }
            assertTrue(exited, "the served stack stops on SIGTERM:\n" + Files.readString(log));
        }
    }

    /** Copies the child's output to {@code log}; completes with the first line starting with {@code prefix}. */
    private static CompletableFuture<String> watchOutput(Process p, Path log, String prefix) {
        CompletableFuture<String> line = new CompletableFuture<>();
        Thread copier = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8)); Writer out = Files.newBufferedWriter(log)) {
                String l;
                while ((l = in.readLine()) != null) {
                    out.write(l + "\n");
                    out.flush();
                    if (l.startsWith(prefix)) {
                        line.complete(l);
                    }
                }
                line.completeExceptionally(new AssertionError("the child exited before printing " + prefix));
            } catch (IOException e) {
                line.completeExceptionally(e);
            }
        }, "child-output");
        copier.setDaemon(true);
        copier.start();
        return line;
    }

    private static List<String> command(Path dir, String... args) throws IOException {
        return command(dir, List.of(), args);
    }

    /** The launcher's command line, with {@code jvmOptions} (system properties) before its main class. */
    private static List<String> command(Path dir, List<String> jvmOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jdkFlags());
        command.add("-Xmx2g");
        command.addAll(jvmOptions);
        command.add("-Dtest.build.data.basedirectory=" + dir.resolve("data"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.phoenixtxn.stack.PhoenixTxnStack");
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * The logging bin/phoenix-txn-stack sets up: conf/phoenix-txn-log4j.properties, everything to {@code logFile},
     * the console keeps our own warnings and other components' errors. Without it every HBase line is on the
     * console, the stack's stopping included (ZooKeeper's ERROR with a stack trace when a watcher's executor is
     * already shut down), which no user sees and a console assertion must not depend on.
     */
    private static List<String> readmeLogging(Path logFile) {
        Path conf = Path.of("..").toAbsolutePath().normalize().resolve("conf").resolve("phoenix-txn-log4j.properties");
        return List.of("-Dphoenix.txn.log.file=" + logFile, "-Dlog4j.configuration=" + conf.toUri());
    }

    private static Result launch(Path dir, String... args) throws IOException, InterruptedException {
        Path logFile = dir.resolve("phoenix-txn-stack.log");
        List<String> command = command(dir, readmeLogging(logFile), args);
        Path log = dir.resolve("launcher.log");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        return new Result(done ? p.exitValue() : -1, output, logFile);
    }

    /** The flags from the one place they live (etc/jdk17-flags.properties at the repository root). */
    private static List<String> jdkFlags() throws IOException {
        Properties p = new Properties();
        try (var in = Files.newInputStream(Path.of("..", "etc", "jdk17-flags.properties"))) {
            p.load(in);
        }
        return Arrays.asList(p.getProperty("jdk17.flags").trim().split("\\s+"));
    }

    private static final class Result {
        final int exit;
        final String output;
        final Path logFile;

        Result(int exit, String output, Path logFile) {
            this.exit = exit;
            this.output = output;
            this.logFile = logFile;
        }
    }
}
