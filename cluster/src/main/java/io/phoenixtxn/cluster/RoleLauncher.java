package io.phoenixtxn.cluster;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts one role as a detached process and waits until it serves. Detached: {@code setsid} gives the process a
 * session of its own, so it outlives the launcher and a Ctrl-C or a closed terminal does not reach it; its input is
 * /dev/null and its console goes to {@code <role>.out}. The pid goes to {@code <role>.pid}.
 *
 * <p>"Serves" means, per role: ZooKeeper answers {@code ruok}; a TM server printed that it contends for primacy;
 * the master finished initialising; a region server started after the launch is counted live by the master. Every
 * wait is bounded, and gives up at once if the process died, with the tail of its log in the error.
 */
public final class RoleLauncher {
    static final long ZK_START_MS = 30_000;
    static final long TM_START_MS = 60_000;
    static final long HBASE_START_MS = 240_000;
    private static final String TM_CONTENDING = "contends for primacy";

    private final ClusterPaths paths;
    private final Installation installation;
    private final PrintStream out;

    public RoleLauncher(ClusterPaths paths, Installation installation, PrintStream out) {
        this.paths = paths;
        this.installation = installation;
        this.out = out;
    }

    /** A started process: its pid, and where its console output began (to wait for lines written after). */
    public record Launched(Role role, long pid, long outOffset, long startedAtMillis) {
    }

    public Launched launch(Role role, ClusterState state) throws ClusterException {
        List<String> command = new ArrayList<>();
        if (setsidAvailable()) {
            command.add("setsid");
        }
        command.addAll(RoleCommand.of(role, state, paths, installation));
        try {
            Files.createDirectories(paths.tmp(role));
            Path console = paths.out(role);
            Files.writeString(console, "==== " + Instant.now() + " starting " + role + ": "
                    + String.join(" ", command) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            long offset = Files.size(console);
            long startedAt = System.currentTimeMillis();
            Process process = new ProcessBuilder(command).directory(paths.roleDir(role).toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()))
                    .start();
            // setsid execs java in place (a child of this JVM is no process-group leader), so the pid is java's.
            long pid = process.pid();
            Files.writeString(paths.pid(role), pid + "\n", StandardCharsets.UTF_8);
            awaitMarker(role, pid, process);
            out.println(role + ": started, pid " + pid + ", port " + state.port(role));
            return new Launched(role, pid, offset, startedAt);
        } catch (IOException e) {
            throw new ClusterException("cannot start " + role + ": " + e, e);
        }
    }

    /** Waits until the launched process serves (see the class comment). */
    public void awaitServing(Launched launched, ClusterState state) throws ClusterException {
        Role role = launched.role();
        switch (role.kind()) {
            case ZOOKEEPER -> await(launched, ZK_START_MS, "answer 'ruok' on port " + state.port(role),
                    () -> ZooKeeperProbe.isServing(state.port(role)));
            case TM -> await(launched, TM_START_MS, "contend for primacy",
                    () -> consoleSince(launched).contains(TM_CONTENDING));
            case MASTER -> {
                try (HBaseProbe hbase = connect(state)) {
                    await(launched, HBASE_START_MS, "finish initialising", () -> answers(hbase::masterInitialized));
                }
            }
            case REGION_SERVER -> {
                try (HBaseProbe hbase = connect(state)) {
                    await(launched, HBASE_START_MS, "be counted live by the master",
                            () -> answers(() -> hbase.liveRegionServerStartCodes(state.port(role)).stream()
                                    .anyMatch(startCode -> startCode >= launched.startedAtMillis() - 1_000)));
                }
            }
            default -> throw new IllegalArgumentException(role.toString());
        }
        out.println(role + ": serving");
    }

    /** A condition checked while waiting. */
    interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits for {@code condition}; fails at once if the process died, or at the deadline. */
    void await(Launched launched, long timeoutMs, String what, Condition condition) throws ClusterException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Role role = launched.role();
        while (true) {
            // /proc may not show the markers for a moment (seen on a loaded machine right after a restart, the
            // process serving a second later): dead only if the operating system agrees
            if (ProcessTable.state(paths, role, launched.pid()) == ProcessTable.State.DEAD
                    && !ProcessHandle.of(launched.pid()).map(ProcessHandle::isAlive).orElse(false)) {
                throw new ClusterException(role + " (pid " + launched.pid() + ") died before it could " + what
                        + ".\n" + Diagnostics.tails(paths, role));
            }
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (Exception e) {
                // not yet: keep waiting until the deadline
            }
            if (System.nanoTime() - deadline > 0) {
                throw new ClusterException(role + " (pid " + launched.pid() + ") did not " + what + " within "
                        + timeoutMs / 1000 + " s.\n" + Diagnostics.tails(paths, role));
            }
            sleep(250);
        }
    }

    private void awaitMarker(Role role, long pid, Process process) throws ClusterException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ProcessTable.isMember(paths, role, pid)) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                throw new ClusterException(role + " did not start (pid " + pid + ").\n" + Diagnostics.tails(paths,
                        role));
            }
            sleep(20);
        }
    }

    private String consoleSince(Launched launched) throws IOException {
        byte[] all = Files.readAllBytes(paths.out(launched.role()));
        int from = (int) Math.min(all.length, launched.outOffset());
        return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    }

    private static HBaseProbe connect(ClusterState state) throws ClusterException {
        try {
            return HBaseProbe.connect(state);
        } catch (IOException e) {
            throw new ClusterException("cannot open an HBase client on ZooKeeper " + state.zkQuorum() + ": " + e, e);
        }
    }

    /** An HBase question that answers false while the cluster is not ready (any error means "not yet"). */
    private interface Question {
        boolean ask() throws IOException;
    }

    private static boolean answers(Question question) {
        try {
            return question.ask();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static void sleep(long ms) throws ClusterException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted", e);
        }
    }

    /** setsid(1) (util-linux); without it the roles stay in the launcher's session (Ctrl-C there reaches them). */
    private static boolean setsidAvailable() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "setsid"))) {
                return true;
            }
        }
        return false;
    }
}
