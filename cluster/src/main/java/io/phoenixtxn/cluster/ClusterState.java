package io.phoenixtxn.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The state file of a cluster ({@code cluster.properties}): its status, its size, the port of every role, the TM
 * base znode and the JDBC URL. Written before any process starts (status {@code STARTING}), so a launcher killed in
 * the middle of a start leaves a file that says so; {@code RUNNING} only once every role answered. Pids are in each
 * role's pid file. Replaced atomically (write, then rename).
 */
public record ClusterState(String name, Status status, int regionServers, Map<String, Integer> ports, String tmZkPath) {

    /** Lifecycle of a cluster directory. */
    public enum Status {
        /** a start is under way, or was interrupted (the launcher died): its processes are leftovers */
        STARTING,
        /** every role answered at the end of a start */
        RUNNING,
        /** stopped by the stop command; its data stays until the next start */
        STOPPED,
        /** a start failed; the processes it started were killed, their logs kept */
        FAILED
    }

    public ClusterState {
        ports = Map.copyOf(ports);
    }

    public List<Role> roles() {
        return Role.all(regionServers);
    }

    public int port(Role role) {
        Integer port = ports.get(role.name());
        if (port == null) {
            throw new IllegalStateException("the state file has no port for " + role);
        }
        return port;
    }

    public ClusterState withStatus(Status next) {
        return new ClusterState(name, next, regionServers, ports, tmZkPath);
    }

    public String zkQuorum() {
        return Loopback.HOST + ":" + port(Role.ZK);
    }

    /** What clients connect with: Phoenix's ZooKeeper URL of this cluster. */
    public String jdbcUrl() {
        return "jdbc:phoenix:" + Loopback.HOST + ":" + port(Role.ZK) + ":" + HBaseSettings.ZNODE_PARENT;
    }

    public void save(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", name);
        p.setProperty("status", status.name());
        p.setProperty("region.servers", Integer.toString(regionServers));
        p.setProperty("tm.zk.path", tmZkPath);
        ports.forEach((role, port) -> p.setProperty("port." + role, Integer.toString(port)));
        p.setProperty("jdbc.url", jdbcUrl());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(out, "phoenix-txn cluster state (bin/phoenix-txn-cluster); pids are in <role>/<role>.pid");
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The state in {@code file}, or empty if there is none; a damaged file is an error naming it. */
    public static Optional<ClusterState> load(Path file) throws ClusterException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (String key : p.stringPropertyNames()) {
                if (key.startsWith("port.")) {
                    ports.put(key.substring("port.".length()), Integer.parseInt(p.getProperty(key)));
                }
            }
            return Optional.of(new ClusterState(required(p, "name"), Status.valueOf(required(p, "status")),
                    Integer.parseInt(required(p, "region.servers")), ports, required(p, "tm.zk.path")));
        } catch (IOException | IllegalArgumentException e) {
            throw new ClusterException("The cluster state file " + file + " cannot be read (" + e.getMessage()
                    + "). Stop leftover processes with 'stop', or remove " + file.getParent() + " by hand.", e);
        }
    }

    private static String required(Properties p, String key) {
        String value = p.getProperty(key);
        if (value == null) {
            throw new IllegalArgumentException("no " + key);
        }
        return value;
    }
}
