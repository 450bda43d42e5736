package io.phoenixtxn.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's non-interactive modes in a separate JVM, exactly as the README runs them (same main class, same
 * JDK flags file): --demo exits 0, and a SQL script through sqlline (CREATE ... TRANSACTIONAL=true, UPSERT,
 * !commit, SELECT) returns the committed row.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
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

    private static Result launch(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jdkFlags());
        command.add("-Xmx2g");
        command.add("-Dtest.build.data.basedirectory=" + dir.resolve("data"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.phoenixtxn.stack.PhoenixTxnStack");
        command.addAll(Arrays.asList(args));
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
