package io.phoenixtxn.cluster;

import io.phoenixtxn.tm.ha.HaConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code start}: a fresh cluster, every role in its own process, in dependency order: ZooKeeper; the two TM servers
 * (before any HBase process, so the cluster has a TM deployment before anything could look for a TM); the master;
 * the region servers. Prints the JDBC URL once every role serves.
 *
 * <p>A previous cluster in the same directory is handled first: one that is running (its last start completed and
 * processes of it live) is left alone and the start refused; anything else (a start that was interrupted, a
 * launcher killed half-way, a stopped or failed cluster) has its leftover processes killed and its directory
 * removed. A start that fails kills what it started, keeps the logs, and names the role that failed.
 */
public final class StartCommand {
    public static final String JDBC_URL_PREFIX = "JDBC URL: ";
    static final int MAX_REGION_SERVERS = 9;

    private final ClusterPaths paths;
    private final String name;
    private final Installation installation;
    private final PrintStream out;

    public StartCommand(ClusterPaths paths, String name, Installation installation, PrintStream out) {
        this.paths = paths;
        this.name = name;
        this.installation = installation;
        this.out = out;
    }

    public ClusterState run(int regionServers, Map<String, String> overrides) throws ClusterException {
        if (regionServers < 1 || regionServers > MAX_REGION_SERVERS) {
            throw new UsageException("--region-servers must be between 1 and " + MAX_REGION_SERVERS + ", not "
                    + regionServers);
        }
        clearPrevious();
        ClusterState state;
        try {
            Files.createDirectories(paths.dir());
            List<Role> roles = Role.all(regionServers);
            List<Integer> free = Loopback.freePorts(roles.size());
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (int i = 0; i < roles.size(); i++) {
                ports.put(roles.get(i).name(), free.get(i));
            }
            state = new ClusterState(name, ClusterState.Status.STARTING, regionServers, ports,
                    overrides.getOrDefault(HaConfig.ZK_PATH, HaConfig.DEFAULT_ZK_PATH));
            state.save(paths.state());
            installation.installInto(paths);
            ConfigFiles.write(state, paths, overrides);
        } catch (IOException e) {
            throw new ClusterException("cannot prepare " + paths.dir() + ": " + e, e);
        }
        out.println("Starting cluster " + name + " in " + paths.dir() + " (" + regionServers + " region servers)");
        try {
            startRoles(state);
        } catch (ClusterException | RuntimeException e) {
            killAll("the start failed");
            saveQuietly(state.withStatus(ClusterState.Status.FAILED));
            throw e;
        }
        ClusterState running = state.withStatus(ClusterState.Status.RUNNING);
        try {
            running.save(paths.state());
        } catch (IOException e) {
            throw new ClusterException("cannot write " + paths.state() + ": " + e, e);
        }
        out.println("Cluster " + name + " is up. Logs: " + paths.dir() + "/<role>/<role>.log");
        out.println(JDBC_URL_PREFIX + running.jdbcUrl());
        return running;
    }

    private void startRoles(ClusterState state) throws ClusterException {
        RoleLauncher launcher = new RoleLauncher(paths, installation, out);
        launcher.awaitServing(launcher.launch(Role.ZK, state), state);
        List<RoleLauncher.Launched> tms = new ArrayList<>();
        for (Role tm : Role.TMS) {
            tms.add(launcher.launch(tm, state));
        }
        for (RoleLauncher.Launched tm : tms) {
            launcher.awaitServing(tm, state);
        }
        awaitPrimary(state);
        RoleLauncher.Launched master = launcher.launch(Role.MASTER, state);
        List<RoleLauncher.Launched> regionServers = new ArrayList<>();
        for (int i = 1; i <= state.regionServers(); i++) {
            regionServers.add(launcher.launch(Role.regionServer(i), state));
        }
        launcher.awaitServing(master, state);
        for (RoleLauncher.Launched rs : regionServers) {
            launcher.awaitServing(rs, state);
        }
    }

    private void awaitPrimary(ClusterState state) throws ClusterException {
        long deadline = System.nanoTime() + RoleLauncher.TM_START_MS * 1_000_000;
        ClusterException last = null;
        while (System.nanoTime() - deadline < 0) {
            try {
                Optional<ZooKeeperProbe.Primary> primary = ZooKeeperProbe.primary(state);
                if (primary.isPresent()) {
                    for (Role tm : Role.TMS) {
                        if (state.port(tm) == primary.get().port()) {
                            out.println(tm + ": primary (epoch " + primary.get().epoch() + ")");
                            return;
                        }
                    }
                }
            } catch (ClusterException e) {
                last = e;
            }
            RoleLauncher.sleep(250);
        }
        StringBuilder why = new StringBuilder("no TM server became primary within " + RoleLauncher.TM_START_MS / 1000
                + " s" + (last == null ? "" : " (" + last.getMessage() + ")") + ".\n");
        Role.TMS.forEach(tm -> why.append(Diagnostics.tails(paths, tm)));
        throw new ClusterException(why.toString());
    }

    /** Refuses a running cluster; otherwise kills leftovers and removes the directory. */
    private void clearPrevious() throws ClusterException {
        Optional<ClusterState> previous;
        try {
            previous = ClusterState.load(paths.state());
        } catch (ClusterException damaged) {
            previous = Optional.empty();
        }
        List<ProcessTable.Member> live = ProcessTable.members(paths);
        if (!live.isEmpty() && previous.map(s -> s.status() == ClusterState.Status.RUNNING).orElse(false)) {
            throw new ClusterException("cluster " + name + " is running in " + paths.dir() + " (live: "
                    + roles(live) + "). Stop it first ('stop'), or bring a dead role back with 'restart ROLE'.");
        }
        if (!live.isEmpty()) {
            out.println("Found " + live.size() + " leftover processes of cluster " + name + " ("
                    + previous.map(s -> "its last state: " + s.status()).orElse("no state file") + "): "
                    + roles(live) + "; killing them");
            killAll("leftovers");
        }
        if (Files.exists(paths.dir())) {
            if (!Files.exists(paths.state()) && !isEmpty()) {
                throw new ClusterException(paths.dir() + " exists and is not a cluster directory (no "
                        + paths.state().getFileName() + "); choose another --name or --base, or remove it");
            }
            out.println("Removing the previous data of cluster " + name + " (" + paths.dir() + ")");
            deleteRecursively();
        }
    }

    private void killAll(String why) throws ClusterException {
        for (ProcessTable.Member member : ProcessTable.members(paths)) {
            ProcessTable.signal(member.pid(), "KILL");
        }
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!ProcessTable.members(paths).isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new ClusterException("processes of cluster " + name + " survived kill -9 (" + why + "): "
                        + roles(ProcessTable.members(paths)));
            }
            RoleLauncher.sleep(100);
        }
    }

    private static String roles(List<ProcessTable.Member> members) {
        List<String> names = new ArrayList<>();
        members.forEach(m -> names.add(m.role() + " (pid " + m.pid() + ")"));
        return String.join(", ", names);
    }

    private boolean isEmpty() throws ClusterException {
        try (Stream<java.nio.file.Path> entries = Files.list(paths.dir())) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            throw new ClusterException("cannot list " + paths.dir() + ": " + e, e);
        }
    }

    private void deleteRecursively() throws ClusterException {
        try (Stream<java.nio.file.Path> walk = Files.walk(paths.dir())) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new ClusterException("cannot remove " + paths.dir() + ": " + e, e);
        }
    }

    private void saveQuietly(ClusterState state) {
        try {
            state.save(paths.state());
        } catch (IOException e) {
            out.println("(could not record the failed start in " + paths.state() + ": " + e + ")");
        }
    }
}
