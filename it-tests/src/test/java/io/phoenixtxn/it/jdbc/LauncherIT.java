package io.phoenixtxn.it.jdbc;

import org.junit.jupiter.api.Test;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's non-interactive modes in a separate JVM, exactly as the README runs them (same main class, same
 * JDK flags file): --demo exits 0, and a SQL script through sqlline (CREATE ... TRANSACTIONAL=true, UPSERT,
 * !commit, SELECT) returns the committed row.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class LauncherIT {

    @Test
    void demoModeRunsAndExitsZero(@TempDir Path dir) throws Exception {
        Result r = launch(dir, "--demo");
        assertEquals(0, r.exit, r.output);
        assertTrue(r.output.contains("Demo finished: every step behaved."), r.output);
        assertTrue(r.output.contains("phoenix-txn"), r.output);
    }

    @Test
    void sqlScriptModeRunsTransactionalStatementsThroughSqlline(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("script.sql");
        Files.writeString(script, String.join("\n",
                "CREATE TABLE T (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true;",
                "UPSERT INTO T VALUES (1, 'committed-through-sqlline');",
                "!commit",
                "UPSERT INTO T VALUES (2, 'rolled-back');",
                "!rollback",
                "SELECT K, V FROM T;",
                ""));
        Result r = launch(dir, "--sql", script.toString());
        assertEquals(0, r.exit, r.output);
        assertTrue(r.output.contains("committed-through-sqlline"), r.output);
        assertTrue(!r.output.contains("| 2 "), r.output);
    }

    /**
     * --serve keeps the stack up and serves its TM; this JVM connects as "another JVM" would (mode remote, so it
     * cannot fall back to its own embedded TM): the TM found through the JDBC URL's ZooKeeper decides its commits,
     * including a write-write conflict. SIGTERM then stops the server cleanly.
     */
    @Test
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
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jdkFlags());
        command.add("-Xmx2g");
        command.add("-Dtest.build.data.basedirectory=" + dir.resolve("data"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.phoenixtxn.stack.PhoenixTxnStack");
        command.addAll(Arrays.asList(args));
        return command;
    }

    private static Result launch(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = command(dir, args);
        Path log = dir.resolve("launcher.log");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        return new Result(done ? p.exitValue() : -1, output);
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

        Result(int exit, String output) {
            this.exit = exit;
            this.output = output;
        }
    }
}
