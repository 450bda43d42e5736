package io.phoenixtxn.it.cluster;

import io.phoenixtxn.cluster.ClusterPaths;
import io.phoenixtxn.cluster.ProcessTable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Drives {@code bin/phoenix-txn-cluster} exactly as a user does, on a cluster of its own under
 * {@code it-tests/target/cluster/<name>}: every command is the script in a child process (bounded in time), and the
 * cluster is whatever the script started, in processes of their own. The script does not build here
 * ({@code PHOENIX_TXN_CLUSTER_BUILD=never}): the reactor just packaged the cluster modules this module depends on.
 */
final class ClusterScript {
    private static final long COMMAND_LIMIT_S = 300;

    private final Path root;
    private final Path base;
    private final String name;
    private final Path transcript;

    ClusterScript(Path root, Path base, String name) {
        this.root = root.toAbsolutePath().normalize();
        this.base = base.toAbsolutePath().normalize();
        this.name = name;
        this.transcript = this.base.resolve(name + "-commands.log");
    }

    /** Starts a fresh transcript of the commands (a file next to the cluster directory). */
    void newTranscript() throws IOException {
        Files.createDirectories(base);
        Files.deleteIfExists(transcript);
    }

    /** The repository root as seen from the it-tests module (failsafe runs in the module's directory). */
    static Path repositoryRoot() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    ClusterPaths paths() {
        return new ClusterPaths(base.resolve(name));
    }

    /** The result of one command. */
    record Result(int exit, String output) {
    }

    /** Runs {@code bin/phoenix-txn-cluster ARGS --base BASE --name NAME}; never throws for a non-zero exit. */
    Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", root.resolve("bin/phoenix-txn-cluster").toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--base", base.toString(), "--name", name));
        Files.createDirectories(base);
        Path output = Files.createTempFile(base, name + "-command", ".out");
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("PHOENIX_TXN_CLUSTER_BUILD", "never");
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        int exit;
        if (process.waitFor(COMMAND_LIMIT_S, TimeUnit.SECONDS)) {
            exit = process.exitValue();
        } else {
            process.children().forEach(ProcessHandle::destroyForcibly); // the launcher JVM under the script
            process.destroyForcibly();
            exit = -1;
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        Files.delete(output);
        Files.writeString(transcript, "$ " + String.join(" ", command) + "\n" + text + "(exit " + exit + ")\n\n",
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return new Result(exit, text);
    }

    /** Runs a command that must succeed; its output. */
    String ok(String... args) throws IOException, InterruptedException {
        Result r = run(args);
        if (r.exit() != 0) {
            throw new AssertionError("phoenix-txn-cluster " + String.join(" ", args) + " exited " + r.exit() + ":\n"
                    + r.output());
        }
        return r.output();
    }

    /** The port of a role, from the cluster's state file. */
    int port(String role) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(paths().state())) {
            p.load(in);
        }
        return Integer.parseInt(p.getProperty("port." + role));
    }

    Path log(String role) {
        return paths().dir().resolve(role).resolve(role + ".log");
    }

    /** Kills (SIGKILL) every process that carries this cluster's marker; returns how many there were. */
    int killLeftovers() {
        List<ProcessTable.Member> members = ProcessTable.members(paths());
        for (ProcessTable.Member member : members) {
            ProcessHandle.of(member.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
        return members.size();
    }
}
