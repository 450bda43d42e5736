package io.phoenixtxn.cluster;

import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.net.TmServerConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes the configuration files of a cluster into its {@code conf/} and {@code client-conf/} directories:
 * hbase-site.xml ({@link HBaseSettings}), ZooKeeper's zoo.cfg, the TM servers' tm-site.xml and the log4j
 * configuration every JVM of the cluster logs with (each to its own file, named by a system property).
 */
public final class ConfigFiles {
    /** The system property naming a JVM's log file. */
    public static final String LOG_FILE_PROPERTY = "phoenix.txn.cluster.log";

    private ConfigFiles() {
    }

    public static void write(ClusterState state, ClusterPaths paths, Map<String, String> overrides)
            throws IOException {
        Files.createDirectories(paths.conf());
        Files.createDirectories(paths.clientConf());
        writeSite(paths.hbaseSite(), "Master and region servers of cluster " + state.name(),
                HBaseSettings.server(state, paths, overrides));
        writeSite(paths.clientConf().resolve("hbase-site.xml"), "Clients of cluster " + state.name()
                + " (the JDBC URL names ZooKeeper)", HBaseSettings.client(overrides));
        writeSite(paths.tmSite(), "TM servers of cluster " + state.name() + " (each one's port is given on its"
                + " command line)", tmSettings(state, overrides));
        Files.writeString(paths.zooCfg(), zooCfg(state, paths), StandardCharsets.UTF_8);
        Files.writeString(paths.log4j(), log4j(), StandardCharsets.UTF_8);
    }

    static List<HBaseSettings.Setting> tmSettings(ClusterState state, Map<String, String> overrides) {
        List<HBaseSettings.Setting> s = new java.util.ArrayList<>();
        s.add(new HBaseSettings.Setting(HaConfig.ZK_QUORUM, state.zkQuorum(),
                "the cluster's ZooKeeper: lease, epochs, fences and the primary's advertisement"));
        s.add(new HBaseSettings.Setting(HaConfig.ZK_PATH, state.tmZkPath(), ""));
        s.add(new HBaseSettings.Setting(TmServerConfig.HOST, Loopback.HOST, "loopback only"));
        s.add(new HBaseSettings.Setting(TmServerConfig.WORKER_THREADS, "2", "a small machine"));
        s.add(new HBaseSettings.Setting(TmServerConfig.IO_THREADS, "1", "a small machine"));
        overrides.forEach((k, v) -> s.add(new HBaseSettings.Setting(k, v, "given to start")));
        return s;
    }

    static String zooCfg(ClusterState state, ClusterPaths paths) {
        return String.join("\n",
                "# ZooKeeper of cluster " + state.name() + ": one standalone server, loopback only.",
                "tickTime=2000",
                "dataDir=" + paths.zkData(),
                "clientPort=" + state.port(Role.ZK),
                "clientPortAddress=" + Loopback.HOST,
                "# Every process of the cluster connects from 127.0.0.1: no per-address connection limit.",
                "maxClientCnxns=0",
                "maxSessionTimeout=60000",
                "# No admin web server (its port 8080 would clash); 'ruok' tells the launcher the server is up.",
                "admin.enableServer=false",
                "4lw.commands.whitelist=ruok,srvr,stat",
                "");
    }

    static String log4j() {
        return String.join("\n",
                "# Every JVM of the cluster logs to its own file: -D" + LOG_FILE_PROPERTY + "=<role>/<role>.log.",
                "log4j.rootLogger=INFO,file",
                "log4j.appender.file=org.apache.log4j.FileAppender",
                "log4j.appender.file.File=${" + LOG_FILE_PROPERTY + "}",
                "log4j.appender.file.Append=true",
                "log4j.appender.file.layout=org.apache.log4j.PatternLayout",
                "log4j.appender.file.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n",
                "log4j.logger.io.phoenixtxn=INFO",
                "# A reader that force-aborts a pending writer says so (rare: a writer the TM could not vouch for).",
                "log4j.logger.io.phoenixtxn.client.CommitResolver=DEBUG",
                "log4j.logger.org.apache.hadoop.metrics2=WARN",
                "log4j.logger.org.apache.hadoop.hbase.metrics=WARN",
                "log4j.logger.org.apache.zookeeper.ClientCnxn=WARN",
                "log4j.logger.org.apache.zookeeper.ZooKeeper=WARN",
                "log4j.logger.org.apache.curator=WARN",
                "");
    }

    static void writeSite(Path file, String title, List<HBaseSettings.Setting> settings) throws IOException {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<!-- ").append(title.replace("--", "- -"))
                .append(". Written by bin/phoenix-txn-cluster start; see docs/deployment.md. -->\n<configuration>\n");
        for (HBaseSettings.Setting s : settings) {
            xml.append("  <property>\n    <name>").append(escape(s.key())).append("</name>\n    <value>")
                    .append(escape(s.value())).append("</value>\n");
            if (!s.why().isEmpty()) {
                xml.append("    <description>").append(escape(s.why())).append("</description>\n");
            }
            xml.append("  </property>\n");
        }
        xml.append("</configuration>\n");
        Files.writeString(file, xml, StandardCharsets.UTF_8);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
