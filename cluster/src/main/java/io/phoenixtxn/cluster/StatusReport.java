package io.phoenixtxn.cluster;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;

/**
 * {@code status}: one line per role with its pid, whether it is up, paused or dead, and its port; for the TM
 * servers, which one ZooKeeper advertises as primary (what clients connect to). Processes of the cluster that no
 * role accounts for (leftovers) are listed too.
 *
 * <pre>
 *   role     pid      state    port   TM
 *   zk       41233    up       40123
 *   tm1      41301    dead     40131  advertised primary, process gone (a backup takes over within the lease)
 *   tm2      41302    up       40132  primary (epoch 2)
 * </pre>
 */
public final class StatusReport {
    private final ClusterPaths paths;
    private final PrintStream out;

    public StatusReport(ClusterPaths paths, PrintStream out) {
        this.paths = paths;
        this.out = out;
    }

    public void print(ClusterState state) {
        out.println("cluster " + state.name() + " in " + paths.dir() + ": " + state.status());
        out.println(StartCommand.JDBC_URL_PREFIX + state.jdbcUrl());
        Optional<ZooKeeperProbe.Primary> primary = Optional.empty();
        String primaryUnknown = null;
        boolean zkUp = ProcessTable.pidOf(paths, Role.ZK)
                .map(pid -> ProcessTable.state(paths, Role.ZK, pid) == ProcessTable.State.UP).orElse(false);
        if (!zkUp) {
            primaryUnknown = "unknown (ZooKeeper is not up)";
        } else {
            try {
                primary = ZooKeeperProbe.primary(state);
            } catch (ClusterException e) {
                primaryUnknown = "unknown (see below)";
                out.println("cannot tell which TM is primary: " + e.getMessage());
            }
        }
        out.println(String.format("%-8s %-8s %-7s %-6s %s", "role", "pid", "state", "port", "TM"));
        for (Role role : state.roles()) {
            Optional<Long> pid = ProcessTable.pidOf(paths, role);
            ProcessTable.State processState = pid.map(p -> ProcessTable.state(paths, role, p))
                    .orElse(ProcessTable.State.DEAD);
            String tm = "";
            if (role.kind() == Role.Kind.TM) {
                tm = tmColumn(state, role, processState, primary, primaryUnknown);
            }
            out.println(String.format("%-8s %-8s %-7s %-6d %s", role, pid.map(String::valueOf).orElse("-"),
                    processState.name().toLowerCase(java.util.Locale.ROOT), state.port(role), tm).stripTrailing());
        }
        List<ProcessTable.Member> members = ProcessTable.members(paths);
        for (ProcessTable.Member member : members) {
            boolean known = state.roles().stream().anyMatch(r -> r.name().equals(member.role())
                    && ProcessTable.pidOf(paths, r).map(p -> p == member.pid()).orElse(false));
            if (!known) {
                out.println("leftover process of this cluster: " + member.role() + " (pid " + member.pid() + ")");
            }
        }
    }

    private static String tmColumn(ClusterState state, Role tm, ProcessTable.State processState,
                                   Optional<ZooKeeperProbe.Primary> primary, String primaryUnknown) {
        if (primaryUnknown != null) {
            return processState == ProcessTable.State.DEAD ? "" : primaryUnknown;
        }
        boolean advertised = primary.isPresent() && primary.get().port() == state.port(tm);
        if (!advertised) {
            return processState == ProcessTable.State.DEAD ? "" : "backup";
        }
        String epoch = "epoch " + primary.get().epoch();
        return switch (processState) {
            case UP -> "primary (" + epoch + ")";
            case PAUSED -> "primary (" + epoch + "), paused: a backup takes over when its lease runs out";
            case DEAD -> "advertised primary (" + epoch + "), process gone: a backup takes over within the lease";
        };
    }
}
