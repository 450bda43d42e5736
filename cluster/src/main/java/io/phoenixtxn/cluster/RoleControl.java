package io.phoenixtxn.cluster;

import java.io.PrintStream;
import java.util.Optional;

/**
 * Fault injection on one role: {@code kill} (SIGKILL: a crash), {@code pause} (SIGSTOP: a process that stops
 * answering, like a long GC pause or a hung host), {@code resume} (SIGCONT) and {@code restart} (stop, then start
 * again on the same port with the same configuration and data, and wait until it serves). A role is named as in
 * {@link Role}, or {@value Role#TM_PRIMARY} / {@value Role#TM_BACKUP}: the TM server ZooKeeper currently
 * advertises as primary, and the other one.
 */
public final class RoleControl {
    static final long KILL_WAIT_MS = 15_000;
    static final long RESTART_TERM_WAIT_MS = 30_000;

    private final ClusterPaths paths;
    private final ClusterState state;
    private final PrintStream out;

    public RoleControl(ClusterPaths paths, ClusterState state, PrintStream out) {
        this.paths = paths;
        this.state = state;
        this.out = out;
    }

    public Role resolve(String name) throws ClusterException {
        if (Role.TM_PRIMARY.equals(name) || Role.TM_BACKUP.equals(name)) {
            ZooKeeperProbe.Primary primary = ZooKeeperProbe.primary(state).orElseThrow(() -> new ClusterException(
                    "no TM server is advertised as primary right now (a failover is under way, or both are down);"
                            + " name tm1 or tm2 instead"));
            for (Role tm : Role.TMS) {
                if ((state.port(tm) == primary.port()) == Role.TM_PRIMARY.equals(name)) {
                    return tm;
                }
            }
            throw new ClusterException("the advertised primary " + primary + " is none of this cluster's TM servers");
        }
        return Role.named(name, state.roles());
    }

    public void kill(Role role) throws ClusterException {
        long pid = running(role);
        ProcessTable.signal(pid, "KILL");
        awaitExit(role, pid, KILL_WAIT_MS);
        out.println(role + ": killed (pid " + pid + ", SIGKILL)");
    }

    public void pause(Role role) throws ClusterException {
        long pid = running(role);
        ProcessTable.signal(pid, "STOP");
        awaitState(role, pid, ProcessTable.State.PAUSED);
        out.println(role + ": paused (pid " + pid + ", SIGSTOP); 'resume " + role + "' continues it");
    }

    public void resume(Role role) throws ClusterException {
        long pid = running(role);
        ProcessTable.signal(pid, "CONT");
        awaitState(role, pid, ProcessTable.State.UP);
        out.println(role + ": resumed (pid " + pid + ", SIGCONT)");
    }

    public void restart(Role role, Installation installation) throws ClusterException {
        Optional<Long> pid = ProcessTable.pidOf(paths, role);
        if (pid.isPresent()) {
            ProcessTable.signal(pid.get(), "TERM");
            ProcessTable.signal(pid.get(), "CONT"); // a paused process handles SIGTERM once it runs again
            if (!exits(role, pid.get(), RESTART_TERM_WAIT_MS)) {
                out.println(role + ": did not stop within " + RESTART_TERM_WAIT_MS / 1000 + " s of SIGTERM; kill -9");
                ProcessTable.signal(pid.get(), "KILL");
                awaitExit(role, pid.get(), KILL_WAIT_MS);
            }
            out.println(role + ": stopped (pid " + pid.get() + ")");
        }
        RoleLauncher launcher = new RoleLauncher(paths, installation, out);
        launcher.awaitServing(launcher.launch(role, state), state);
    }

    private long running(Role role) throws ClusterException {
        return ProcessTable.pidOf(paths, role).orElseThrow(() -> new ClusterException(role + " is not running"
                + " (its process is gone); 'restart " + role + "' starts it again"));
    }

    private void awaitExit(Role role, long pid, long timeoutMs) throws ClusterException {
        if (!exits(role, pid, timeoutMs)) {
            throw new ClusterException(role + " (pid " + pid + ") is still there " + timeoutMs / 1000
                    + " s after the signal");
        }
    }

    private boolean exits(Role role, long pid, long timeoutMs) throws ClusterException {
        try {
            return ProcessTable.awaitExit(paths, role, pid, timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted", e);
        }
    }

    private void awaitState(Role role, long pid, ProcessTable.State wanted) throws ClusterException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (ProcessTable.state(paths, role, pid) != wanted) {
            if (System.nanoTime() - deadline > 0) {
                throw new ClusterException(role + " (pid " + pid + ") is " + ProcessTable.state(paths, role, pid)
                        + ", not " + wanted + ", 5 s after the signal");
            }
            RoleLauncher.sleep(20);
        }
    }
}
