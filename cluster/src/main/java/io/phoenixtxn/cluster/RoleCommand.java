package io.phoenixtxn.cluster;

import io.phoenixtxn.tm.net.TmServerConfig;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of each role, as an operator would run it: the same main classes as HBase's and ZooKeeper's
 * scripts and {@code bin/tm-server}, the JDK 17 flags, a heap that fits a small machine (a 2-core, 24 GiB box runs
 * the whole cluster next to a build), and the two marker arguments ({@link ProcessTable}).
 *
 * <p>ZooKeeper runs ZooKeeper's own {@code QuorumPeerMain} with a zoo.cfg, not HBase's {@code HQuorumPeer}: in
 * production ZooKeeper is an ensemble of its own that HBase and the TM servers share (HQuorumPeer is HBase managing
 * ZooKeeper for itself, which a TM deployment must not depend on).
 */
public final class RoleCommand {
    static final String ZOOKEEPER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    static final String MASTER_MAIN = "org.apache.hadoop.hbase.master.HMaster";
    static final String REGION_SERVER_MAIN = "org.apache.hadoop.hbase.regionserver.HRegionServer";
    static final String TM_SERVER_MAIN = "io.phoenixtxn.tm.ha.TmServerMain";

    private RoleCommand() {
    }

    public static List<String> of(Role role, ClusterState state, ClusterPaths paths, Installation installation)
            throws ClusterException {
        List<String> cmd = new ArrayList<>();
        cmd.add(installation.java().toString());
        cmd.addAll(installation.jdkFlags());
        cmd.add("-Xms64m");
        cmd.add("-Xmx" + heap(role.kind()));
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add(paths.marker());
        cmd.add(ProcessTable.ROLE_MARKER + role.name());
        cmd.add("-Dlog4j.configuration=" + paths.log4j().toUri());
        cmd.add("-D" + ConfigFiles.LOG_FILE_PROPERTY + "=" + paths.log(role));
        cmd.add("-Djava.io.tmpdir=" + paths.tmp(role));
        switch (role.kind()) {
            case ZOOKEEPER -> {
                cmd.add("-Dzookeeper.admin.enableServer=false");
                cmd.add("-cp");
                cmd.add(join(installation.hbaseLib()));
                cmd.add(ZOOKEEPER_MAIN);
                cmd.add(paths.zooCfg().toString());
            }
            case MASTER -> {
                cmd.addAll(hbaseClasspath(paths, installation));
                cmd.add(MASTER_MAIN);
                cmd.addAll(List.of("-D", "hbase.tmp.dir=" + paths.tmp(role)));
                cmd.add("start");
            }
            case REGION_SERVER -> {
                cmd.addAll(hbaseClasspath(paths, installation));
                cmd.add(REGION_SERVER_MAIN);
                // Several region servers on one host, as HBase's local-regionservers.sh runs them: the port per
                // process through Hadoop's generic -D option, everything else from the shared hbase-site.xml.
                cmd.addAll(List.of("-D", "hbase.regionserver.port=" + state.port(role)));
                cmd.addAll(List.of("-D", "hbase.tmp.dir=" + paths.tmp(role)));
                cmd.add("start");
            }
            case TM -> {
                List<Path> classpath = new ArrayList<>();
                classpath.add(paths.tmLib().resolve("*"));
                classpath.addAll(installation.tmLib());
                cmd.add("-cp");
                cmd.add(join(classpath));
                cmd.add(TM_SERVER_MAIN);
                cmd.addAll(List.of("-c", paths.tmSite().toString()));
                cmd.add("-D" + TmServerConfig.PORT + "=" + state.port(role));
            }
            default -> throw new IllegalArgumentException(role.toString());
        }
        return cmd;
    }

    /** The classpath of the master and region servers: conf first (hbase-site.xml), our jars, then HBase's. */
    private static List<String> hbaseClasspath(ClusterPaths paths, Installation installation)
            throws ClusterException {
        List<Path> classpath = new ArrayList<>();
        classpath.add(paths.conf());
        classpath.add(paths.lib().resolve("*"));
        classpath.addAll(installation.hbaseLib());
        return List.of("-cp", join(classpath));
    }

    /** What a client JVM needs: its hbase-site.xml, our jars, Phoenix and HBase; with sqlline for the shell. */
    public static String clientClasspath(ClusterPaths paths, Installation installation) throws ClusterException {
        List<Path> classpath = new ArrayList<>();
        classpath.add(paths.clientConf());
        classpath.add(paths.lib().resolve("*"));
        classpath.addAll(installation.hbaseLib());
        classpath.addAll(installation.sqlline());
        return join(classpath);
    }

    static String heap(Role.Kind kind) {
        return switch (kind) {
            case ZOOKEEPER -> "128m";
            case MASTER -> "768m";
            case REGION_SERVER -> "1536m";
            case TM -> "256m"; // the default conflict table is 64 MiB
        };
    }

    private static String join(List<Path> classpath) {
        List<String> entries = new ArrayList<>();
        classpath.forEach(p -> entries.add(p.toString()));
        return String.join(File.pathSeparator, entries);
    }
}
