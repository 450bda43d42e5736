package io.phoenixtxn.chaos;

import io.phoenixtxn.cluster.ClusterException;
import io.phoenixtxn.cluster.ClusterPaths;
import io.phoenixtxn.cluster.ClusterState;
import io.phoenixtxn.cluster.HBaseSettings;
import io.phoenixtxn.cluster.Installation;
import io.phoenixtxn.cluster.ProcessTable;
import io.phoenixtxn.cluster.Role;
import io.phoenixtxn.cluster.RoleCommand;
import io.phoenixtxn.cluster.RoleControl;
import io.phoenixtxn.cluster.StartCommand;
import io.phoenixtxn.cluster.StopCommand;
import io.phoenixtxn.cluster.ZooKeeperProbe;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The driver's hands on the cluster: the same code {@code bin/phoenix-txn-cluster} runs for start, stop and
 * kill/pause/resume/restart of a role ({@link StartCommand}, {@link StopCommand}, {@link RoleControl}), called in
 * this JVM so a fault lands at a known instant, plus an HBase client for the questions and region operations the
 * launcher has no command for (which region server serves a table, splits, moves). Everything is logged to the
 * nemesis log.
 */
final class ClusterControl implements AutoCloseable, LastServerGuard.Servers {
    private final ClusterPaths paths;
    private final String name;
    private final Installation installation;
    private final PrintStream log;
    private ClusterState state;
    private Connection hbase;

    ClusterControl(Path base, String name, Installation installation, PrintStream log) {
        this.paths = new ClusterPaths(base.resolve(name));
        this.name = name;
        this.installation = installation;
        this.log = log;
    }

    ClusterPaths paths() {
        return paths;
    }

    /**
     * A fresh cluster. Processes of an earlier run of the same name (a killed driver leaves a RUNNING cluster, which
     * the start command would refuse) are killed first; the start command then removes the old directory.
     */
    void start(int regionServers, Map<String, String> overrides) throws ClusterException {
        List<ProcessTable.Member> leftovers = ProcessTable.members(paths);
        if (!leftovers.isEmpty()) {
            log.println("killing " + leftovers.size() + " processes left by an earlier run of cluster " + name);
            for (ProcessTable.Member m : leftovers) {
                ProcessTable.signal(m.pid(), "KILL");
            }
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (!ProcessTable.members(paths).isEmpty() && System.nanoTime() < deadline) {
                sleep(100);
            }
        }
        state = new StartCommand(paths, name, installation, log).run(regionServers, overrides);
    }

    String jdbcUrl() {
        return state.jdbcUrl();
    }

    String clientClasspath() throws ClusterException {
        return RoleCommand.clientClasspath(paths, installation);
    }

    @Override
    public List<String> regionServerRoles() {
        List<String> roles = new ArrayList<>();
        for (int i = 1; i <= state.regionServers(); i++) {
            roles.add(Role.regionServer(i).name());
        }
        return roles;
    }

    void kill(String role) throws ClusterException {
        control().kill(resolve(role));
    }

    void pause(String role) throws ClusterException {
        control().pause(resolve(role));
    }

    void resume(String role) throws ClusterException {
        control().resume(resolve(role));
    }

    @Override
    public void restart(String role) throws ClusterException {
        control().restart(resolve(role), installation);
    }

    /** UP, PAUSED or DEAD. */
    @Override
    public ProcessTable.State stateOf(String role) {
        Role r = resolve(role);
        return ProcessTable.pidOf(paths, r).map(pid -> ProcessTable.state(paths, r, pid))
                .orElse(ProcessTable.State.DEAD);
    }

    List<String> roles() {
        List<String> names = new ArrayList<>();
        state.roles().forEach(r -> names.add(r.name()));
        return names;
    }

    /** The TM role ZooKeeper advertises as primary, or empty (a failover under way, or ZooKeeper down). */
    Optional<String> primaryTm() {
        try {
            Optional<ZooKeeperProbe.Primary> primary = ZooKeeperProbe.primary(state);
            if (primary.isEmpty()) {
                return Optional.empty();
            }
            for (Role tm : Role.TMS) {
                if (state.port(tm) == primary.get().port()) {
                    return Optional.of(tm.name());
                }
            }
            return Optional.empty();
        } catch (ClusterException e) {
            return Optional.empty();
        }
    }

    /** The epoch of the primary ZooKeeper advertises (its timestamps lie above it), or empty. */
    Optional<Long> primaryEpoch() {
        try {
            return ZooKeeperProbe.primary(state).map(ZooKeeperProbe.Primary::epoch);
        } catch (ClusterException e) {
            return Optional.empty();
        }
    }

    Path console(String role) {
        return paths.out(resolve(role));
    }

    /** The region-server role serving on {@code server}'s port, or null. */
    String roleOf(ServerName server) {
        for (String role : regionServerRoles()) {
            if (state.port(resolve(role)) == server.getPort()) {
                return role;
            }
        }
        return null;
    }

    int port(String role) {
        return state.port(resolve(role));
    }

    /** Region locations of {@code table}, read from hbase:meta now (not a cache). */
    List<HRegionLocation> regions(TableName table) throws IOException {
        try (RegionLocator locator = hbase().getRegionLocator(table)) {
            return locator.getAllRegionLocations();
        }
    }

    Admin admin() throws IOException {
        return hbase().getAdmin();
    }

    synchronized Connection hbase() throws IOException {
        if (hbase == null || hbase.isClosed()) {
            Configuration conf = HBaseConfiguration.create();
            conf.set(HConstants.ZOOKEEPER_QUORUM, "127.0.0.1");
            conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, state.port(Role.ZK));
            conf.set(HConstants.ZOOKEEPER_ZNODE_PARENT, HBaseSettings.ZNODE_PARENT);
            // The driver polls while regions move: a question that fails is asked again a moment later
            conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 3);
            conf.setInt(HConstants.HBASE_CLIENT_PAUSE, 100);
            conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, 5_000);
            conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 15_000);
            conf.setInt("zookeeper.recovery.retry", 1);
            hbase = ConnectionFactory.createConnection(conf);
        }
        return hbase;
    }

    /** Stops every process (StopCommand), then kills whatever still carries the cluster's marker. */
    void stop() {
        closeHBase();
        try {
            if (state != null) {
                new StopCommand(paths, log).run(ClusterState.load(paths.state()).orElse(state));
            }
        } catch (ClusterException | RuntimeException e) {
            log.println("stop failed: " + e.getMessage() + "; killing the cluster's processes");
        }
        killLeftovers();
    }

    /** SIGKILL to every process of the cluster (a driver ended early); safe from a shutdown hook. */
    void killLeftovers() {
        for (ProcessTable.Member m : ProcessTable.members(paths)) {
            ProcessHandle.of(m.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private synchronized void closeHBase() {
        if (hbase != null) {
            try {
                hbase.close();
            } catch (IOException e) {
                log.println("closing the driver's HBase connection: " + e);
            }
            hbase = null;
        }
    }

    @Override
    public void close() {
        closeHBase();
    }

    private RoleControl control() {
        return new RoleControl(paths, state, log);
    }

    private Role resolve(String role) {
        return Role.named(role, state.roles());
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
