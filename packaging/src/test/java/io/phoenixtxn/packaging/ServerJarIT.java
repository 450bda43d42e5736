package io.phoenixtxn.packaging;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The region-server jar where HBase loads it: a JVM whose classpath is HBase's and Phoenix's unshaded jars (as in
 * HBase's lib directory), the launcher of the embedded stack, and {@code phoenix-txn-server-VERSION.jar} in place
 * of every module jar of ours. Its minicluster region server loads our observers from that jar and runs a script:
 * a transactional table, a commit, an online CREATE INDEX (populated on the region server) and a read through the
 * index.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ServerJarIT {
    private static final Path TARGET = Path.of(System.getProperty("phoenixtxn.packaging.dir", "target"))
            .toAbsolutePath();
    private static final String VERSION = System.getProperty("phoenixtxn.packaging.version");

    @Test
    void regionServerRunsOnTheServerJarInPlaceOfTheModuleJars(@TempDir Path dir) throws Exception {
        Path repository = TARGET.getParent().getParent();
        List<String> classpath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath();
            boolean ours = path.startsWith(repository) || entry.contains("/io/phoenixtxn/");
            if (!ours || path.startsWith(repository.resolve("embedded-stack"))) {
                classpath.add(entry); // HBase, Phoenix, Hadoop and the like; and the stack's launcher
            }
        }
        classpath.add(TARGET.resolve("phoenix-txn-server-" + VERSION + ".jar").toString());
        assertTrue(classpath.stream().noneMatch(e -> e.contains("tm-service") || e.contains("coprocessors")),
                "no module jar of ours: " + classpath);

        Path script = Files.writeString(dir.resolve("script.sql"), String.join("\n",
                "CREATE TABLE SJ (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true;",
                "UPSERT INTO SJ VALUES (1, 'one');",
                "!commit",
                "CREATE INDEX SJ_V ON SJ (V);",
                "UPSERT INTO SJ VALUES (2, 'two');",
                "!commit",
                "SELECT COUNT(*) FROM SJ WHERE V = 'two';", ""));
        List<String> command = new ArrayList<>();
        command.add("timeout");
        command.add("300");
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Properties flags = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(System.getProperty("phoenixtxn.jdk17.flags.file")))) {
            flags.load(in);
        }
        command.addAll(Arrays.asList(flags.getProperty("jdk17.flags").trim().split("\\s+")));
        command.addAll(List.of("-Xmx1g", "-cp", String.join(File.pathSeparator, classpath),
                "io.phoenixtxn.stack.PhoenixTxnStack", "--sql", script.toString()));
        Path log = dir.resolve("stack.log");
        Process stack = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean exited = stack.waitFor(5, TimeUnit.MINUTES);
        if (!exited) {
            stack.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        String tail = output.substring(Math.max(0, output.length() - 8000));
        assertTrue(exited, "the stack did not finish in time:\n" + tail);
        assertEquals(0, stack.exitValue(), "the script failed on the server jar:\n" + tail);
        // The region server populated the index with the population scanner the server jar brings.
        assertTrue(output.lines().anyMatch(l -> l.contains("Index population of SJ_V on SJ at fence")
                && l.contains("finished") && l.contains("1 rows scanned, 1 index rows written, on the region servers")),
                tail);
        List<String> selected = output.lines().filter(l -> l.contains("row selected")).collect(Collectors.toList());
        assertEquals(1, selected.size(), tail);
    }
}
