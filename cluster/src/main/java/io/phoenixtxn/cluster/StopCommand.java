package io.phoenixtxn.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code stop}: the reverse of start, each step bounded and ending in kill -9 for a process that does not go.
 * Paused processes are resumed first (a stopped process cannot shut down). TM servers go first, the backup before
 * the primary (no needless failover); then HBase as its own stop script does it, by asking the master to shut the
 * cluster down (region servers close and flush their regions); ZooKeeper last. The directory stays (logs, data)
 * until the next start.
 */
public final class StopCommand {
    static final long TERM_WAIT_MS = 20_000;
    static final long HBASE_SHUTDOWN_MS = 90_000;

    private final ClusterPaths paths;
    private final PrintStream out;

    public StopCommand(ClusterPaths paths, PrintStream out) {
        this.paths = paths;
        this.out = out;
    }

    public void run(ClusterState state) throws ClusterException {
        for (ProcessTable.Member member : ProcessTable.members(paths)) {
            ProcessTable.signal(member.pid(), "CONT");
        }
        stopTms(state);
        stopHBase(state);
        terminate(List.of(Role.ZK), TERM_WAIT_MS);
        for (ProcessTable.Member stray : ProcessTable.members(paths)) {
            out.println("killing a stray process of the cluster: " + stray.role() + " (pid " + stray.pid() + ")");
            ProcessTable.signal(stray.pid(), "KILL");
        }
        try {
            state.withStatus(ClusterState.Status.STOPPED).save(paths.state());
        } catch (IOException e) {
            throw new ClusterException("cannot write " + paths.state() + ": " + e, e);
        }
        out.println("Cluster " + state.name() + " stopped; its logs and data stay in " + paths.dir()
                + " until the next start.");
    }

    private void stopTms(ClusterState state) throws ClusterException {
        List<Role> order = new ArrayList<>(Role.TMS);
        try {
            Optional<ZooKeeperProbe.Primary> primary = ZooKeeperProbe.primary(state);
            primary.ifPresent(p -> order.sort((a, b) -> Boolean.compare(state.port(a) == p.port(),
                    state.port(b) == p.port())));
        } catch (ClusterException e) {
            out.println("(cannot tell which TM is primary, stopping both in turn: " + e.getMessage() + ")");
        }
        for (Role tm : order) {
            terminate(List.of(tm), TERM_WAIT_MS);
        }
    }

    private void stopHBase(ClusterState state) throws ClusterException {
        List<Role> hbase = new ArrayList<>();
        for (Role role : state.roles()) {
            if (role.kind() == Role.Kind.MASTER || role.kind() == Role.Kind.REGION_SERVER) {
                hbase.add(role);
            }
        }
        Optional<Long> master = ProcessTable.pidOf(paths, Role.MASTER);
        if (master.isPresent() && askMasterToShutDown(state)) {
            out.println("HBase: the master is shutting the cluster down");
            if (awaitAllGone(hbase, HBASE_SHUTDOWN_MS)) {
                out.println("HBase: master and region servers stopped");
                return;
            }
            out.println("HBase did not stop within " + HBASE_SHUTDOWN_MS / 1000 + " s; terminating its processes");
        }
        List<Role> regionServersFirst = new ArrayList<>(hbase);
        regionServersFirst.remove(Role.MASTER);
        regionServersFirst.add(Role.MASTER);
        terminate(regionServersFirst, TERM_WAIT_MS);
    }

    /** Admin.shutdown, bounded: a master that is paused or wedged must not hang the stop. */
    private boolean askMasterToShutDown(ClusterState state) {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "hbase-shutdown");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<?> shutdown = executor.submit(() -> {
                try (HBaseProbe hbase = HBaseProbe.connect(state)) {
                    hbase.shutdownCluster();
                }
                return null;
            });
            shutdown.get(30, TimeUnit.SECONDS);
            return true;
        } catch (Exception e) {
            out.println("(the master did not take the shutdown request: " + e + ")");
            return false;
        } finally {
            executor.shutdownNow();
        }
    }

    /** SIGTERM to each role's process, then kill -9 for any still there after {@code waitMs}. */
    private void terminate(List<Role> roles, long waitMs) throws ClusterException {
        List<Role> signalled = new ArrayList<>();
        for (Role role : roles) {
            Optional<Long> pid = ProcessTable.pidOf(paths, role);
            if (pid.isPresent()) {
                ProcessTable.signal(pid.get(), "TERM");
                signalled.add(role);
            }
        }
        if (awaitAllGone(signalled, waitMs)) {
            signalled.forEach(role -> out.println(role + ": stopped"));
            return;
        }
        for (Role role : signalled) {
            Optional<Long> pid = ProcessTable.pidOf(paths, role);
            if (pid.isPresent()) {
                out.println(role + ": did not stop within " + waitMs / 1000 + " s of SIGTERM; kill -9");
                ProcessTable.signal(pid.get(), "KILL");
            } else {
                out.println(role + ": stopped");
            }
        }
        if (!awaitAllGone(signalled, 10_000)) {
            throw new ClusterException("processes survived kill -9: " + signalled);
        }
    }

    private boolean awaitAllGone(List<Role> roles, long waitMs) throws ClusterException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (true) {
            boolean anyLeft = false;
            for (Role role : roles) {
                anyLeft |= ProcessTable.pidOf(paths, role).isPresent();
            }
            if (!anyLeft) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            RoleLauncher.sleep(200);
        }
    }
}
