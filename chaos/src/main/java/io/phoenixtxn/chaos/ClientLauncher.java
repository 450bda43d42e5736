package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.ChaosClientMain;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Command lines of the client JVMs: the cluster's client classpath (its hbase-site.xml, our jars as installed in the
 * cluster, Phoenix and HBase) plus the chaos and history-checker jars, the JDK 17 flags, a small heap, and the
 * cluster's log4j configuration writing to the client's own log. JDBC properties: transactions on, and
 * {@code phoenix.txn.tm.mode=remote} (the cluster's TM servers, never a TM of the client's own).
 */
final class ClientLauncher {
    static final String HEAP = "-Xmx512m";

    private final Path java;
    private final List<String> jdkFlags;
    private final String classpath;
    private final Path log4j;
    private final String url;
    private final long origin;
    private final Map<String, String> properties;

    ClientLauncher(Path java, List<String> jdkFlags, String clusterClientClasspath, List<Path> extraJars, Path log4j,
                   String url, long origin, Map<String, String> properties) {
        this.java = java;
        this.jdkFlags = List.copyOf(jdkFlags);
        List<String> entries = new ArrayList<>(List.of(clusterClientClasspath));
        extraJars.forEach(p -> entries.add(p.toString()));
        this.classpath = String.join(File.pathSeparator, entries);
        this.log4j = log4j;
        this.url = url;
        this.origin = origin;
        this.properties = Map.copyOf(properties);
    }

    Process run(ClientGeneration g, int threads, long seed, Path stopFile) throws IOException {
        List<String> args = new ArrayList<>(List.of("run", "--workload", g.workload, "--url", url,
                "--table", g.table(), "--history", g.history().toString(), "--origin", Long.toString(origin),
                "--threads", Integer.toString(threads), "--seed", Long.toString(seed),
                "--stop-file", stopFile.toString(), "--ready-file", g.readyFile().toString(),
                "--halt-trigger", g.haltTrigger().toString(), "--halt-record", g.haltRecord().toString(),
                "--decision-log", g.decisionLog().toString()));
        return start(g.dir, g.log(), g.console(), args);
    }

    Process finalRead(ClientGeneration g) throws IOException {
        List<String> args = new ArrayList<>(List.of("final-read", "--workload", g.workload, "--url", url,
                "--table", g.table(), "--history", g.history().toString(), "--origin", Long.toString(origin)));
        return start(g.dir, g.dir.resolve("final-read.log"), g.finalReadConsole(), args);
    }

    Process index(Path dir, String table, String key, String column, String index, long holdMs, Path result)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("index", "--url", url, "--table", table, "--key", key,
                "--column", column, "--index", index, "--hold-ms", Long.toString(holdMs), "--result",
                result.toString(), "--origin", Long.toString(origin)));
        return start(dir, dir.resolve("index.log"), dir.resolve("index.out"), args);
    }

    private Process start(Path dir, Path log, Path console, List<String> modeArgs) throws IOException {
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jdkFlags);
        cmd.add(HEAP);
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-Dlog4j.configuration=" + log4j.toUri());
        cmd.add("-D" + io.phoenixtxn.cluster.ConfigFiles.LOG_FILE_PROPERTY + "=" + log);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(ChaosClientMain.class.getName());
        cmd.addAll(modeArgs);
        properties.forEach((k, v) -> {
            cmd.add("--property");
            cmd.add(k + "=" + v);
        });
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile())).start();
    }
}
