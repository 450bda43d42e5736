package io.phoenixtxn.cluster;

import java.nio.file.Path;

/**
 * Where everything of one cluster lives: one directory per cluster ({@code target/cluster/<name>} by default), one
 * subdirectory per role with its log, console output and pid file. Nothing of a cluster is written elsewhere, so
 * removing the directory removes the cluster's data.
 *
 * <pre>
 *   cluster.properties     state: status, ports, JDBC URL ({@link ClusterState})
 *   conf/                  hbase-site.xml (master, region servers), zoo.cfg, tm-site.xml, log4j.properties
 *   client-conf/           hbase-site.xml of a client (what sqlline runs with)
 *   lib/                   our jars as an operator installs them in HBase's lib directory
 *   tm-lib/                our jars of the TM server
 *   hbase/                 hbase.rootdir (local file system)
 *   &lt;role&gt;/                &lt;role&gt;.log, &lt;role&gt;.out (console), &lt;role&gt;.pid, tmp/; zk/data for ZooKeeper
 * </pre>
 */
public record ClusterPaths(Path dir) {
    public ClusterPaths {
        dir = dir.toAbsolutePath().normalize();
    }

    public Path state() {
        return dir.resolve("cluster.properties");
    }

    public Path conf() {
        return dir.resolve("conf");
    }

    public Path hbaseSite() {
        return conf().resolve("hbase-site.xml");
    }

    public Path zooCfg() {
        return conf().resolve("zoo.cfg");
    }

    public Path tmSite() {
        return conf().resolve("tm-site.xml");
    }

    public Path log4j() {
        return conf().resolve("log4j.properties");
    }

    public Path clientConf() {
        return dir.resolve("client-conf");
    }

    public Path lib() {
        return dir.resolve("lib");
    }

    public Path tmLib() {
        return dir.resolve("tm-lib");
    }

    public Path hbaseRoot() {
        return dir.resolve("hbase");
    }

    public Path zkData() {
        return roleDir(Role.ZK).resolve("data");
    }

    public Path roleDir(Role role) {
        return dir.resolve(role.name());
    }

    public Path log(Role role) {
        return roleDir(role).resolve(role.name() + ".log");
    }

    /** Standard output and error of the role's JVM (JVM errors, the TM server's status lines). */
    public Path out(Role role) {
        return roleDir(role).resolve(role.name() + ".out");
    }

    public Path pid(Role role) {
        return roleDir(role).resolve(role.name() + ".pid");
    }

    public Path tmp(Role role) {
        return roleDir(role).resolve("tmp");
    }

    /** The argument every process of this cluster carries, and by which leftovers are found. */
    public String marker() {
        return ProcessTable.CLUSTER_MARKER + dir;
    }
}
