package io.phoenixtxn.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The processes of a cluster, found through Linux's {@code /proc}: every process the launcher starts carries two
 * marker arguments, {@code -Dphoenix.txn.cluster=<cluster dir>} and {@code -Dphoenix.txn.cluster.role=<role>}. A
 * pid counts as a role's process only while its command line carries both markers, so a pid reused by an unrelated
 * program after a crash is never signalled, and leftovers of an interrupted start are found without any pid file.
 * Signals go through {@code kill(1)}: SIGSTOP and SIGCONT have no Java API.
 */
public final class ProcessTable {
    public static final String CLUSTER_MARKER = "-Dphoenix.txn.cluster=";
    public static final String ROLE_MARKER = "-Dphoenix.txn.cluster.role=";

    private static final Path PROC = Path.of("/proc");

    /** What a process is doing, as far as signals are concerned. */
    public enum State {
        UP, PAUSED, DEAD
    }

    /** A running process of a cluster. */
    public record Member(long pid, String role) {
    }

    private ProcessTable() {
    }

    /** The live processes of the cluster in {@code dir} (zombies excluded: their command line is gone). */
    public static List<Member> members(ClusterPaths paths) {
        List<Member> found = new ArrayList<>();
        try (Stream<Path> entries = Files.list(PROC)) {
            entries.map(p -> p.getFileName().toString()).filter(ProcessTable::isPid).forEach(pid -> {
                List<String> args = commandLine(Long.parseLong(pid));
                if (args.contains(paths.marker())) {
                    String role = args.stream().filter(a -> a.startsWith(ROLE_MARKER))
                            .map(a -> a.substring(ROLE_MARKER.length())).findFirst().orElse("?");
                    found.add(new Member(Long.parseLong(pid), role));
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + PROC + " (the cluster launcher needs Linux): " + e, e);
        }
        return found;
    }

    /** The live process of {@code role}: the pid file's pid if it still carries the markers, else a scan. */
    public static Optional<Long> pidOf(ClusterPaths paths, Role role) {
        Optional<Long> recorded = recordedPid(paths, role);
        if (recorded.isPresent() && isMember(paths, role, recorded.get())) {
            return recorded;
        }
        return members(paths).stream().filter(m -> m.role().equals(role.name())).map(Member::pid).findFirst();
    }

    public static Optional<Long> recordedPid(ClusterPaths paths, Role role) {
        try {
            return Optional.of(Long.parseLong(Files.readString(paths.pid(role)).trim()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    public static boolean isMember(ClusterPaths paths, Role role, long pid) {
        List<String> args = commandLine(pid);
        return args.contains(paths.marker()) && args.contains(ROLE_MARKER + role.name());
    }

    /** UP, PAUSED (stopped by a signal) or DEAD (gone, a zombie, or no longer ours). */
    public static State state(ClusterPaths paths, Role role, long pid) {
        if (!isMember(paths, role, pid)) {
            return State.DEAD;
        }
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            // "pid (comm) S ...": comm may contain spaces and parentheses; the state follows the last ')'.
            char s = stat.charAt(stat.lastIndexOf(')') + 2);
            if (s == 'T' || s == 't') {
                return State.PAUSED;
            }
            return s == 'Z' || s == 'X' ? State.DEAD : State.UP;
        } catch (IOException | IndexOutOfBoundsException e) {
            return State.DEAD;
        }
    }

    /** Sends {@code signal} (KILL, TERM, STOP, CONT) to {@code pid}; false if the process was gone. */
    public static boolean signal(long pid, String signal) throws ClusterException {
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new ClusterException("kill -s " + signal + " " + pid + " did not return");
            }
            if (kill.exitValue() != 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                throw new ClusterException("kill -s " + signal + " " + pid + " failed: " + output);
            }
            return kill.exitValue() == 0;
        } catch (IOException e) {
            throw new ClusterException("cannot run kill(1) to send SIG" + signal + " to " + pid + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted while signalling " + pid, e);
        }
    }

    /** Waits until the role's process {@code pid} is gone (or a zombie); true if it went within the time. */
    public static boolean awaitExit(ClusterPaths paths, Role role, long pid, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (state(paths, role, pid) != State.DEAD) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }

    /** The command line of {@code pid}, split at NUL; empty if the process is gone or a zombie. */
    static List<String> commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("cmdline"));
            List<String> args = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < raw.length; i++) {
                if (raw[i] == 0) {
                    args.add(new String(raw, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            if (start < raw.length) {
                args.add(new String(raw, start, raw.length - start, StandardCharsets.UTF_8));
            }
            return args;
        } catch (IOException e) {
            return List.of();
        }
    }

    private static boolean isPid(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!Character.isDigit(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
