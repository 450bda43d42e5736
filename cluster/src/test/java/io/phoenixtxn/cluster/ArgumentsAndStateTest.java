package io.phoenixtxn.cluster;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArgumentsAndStateTest {

    @Test
    void parsesStartWithItsOptions() {
        ClusterMain.Arguments a = ClusterMain.Arguments.parse(new String[] {"start", "--region-servers", "3",
                "-Dphoenix.txn.tm.lease.ms=4000", "--name", "it", "--base", "/tmp/x"});
        assertEquals("start", a.command);
        assertEquals(3, a.regionServers);
        assertEquals(Map.of("phoenix.txn.tm.lease.ms", "4000"), a.overrides);
        assertEquals("it", a.name);
        assertEquals("/tmp/x", a.base);
        assertEquals("rs2", ClusterMain.Arguments.parse(new String[] {"kill", "rs2"}).role("kill"));
    }

    @Test
    void refusesBadUsageWithAMessageSayingWhatIsAccepted() {
        assertMessage("no command", new String[0]);
        assertMessage("--region-servers needs a number", new String[] {"start", "--region-servers", "two"});
        assertMessage("--name needs a value", new String[] {"status", "--name"});
        assertMessage("letters, digits", new String[] {"status", "--name", "../etc"});
        assertMessage("go with start only", new String[] {"status", "-Da=b"});
        assertMessage("unknown option '--force'", new String[] {"start", "--force"});
        assertMessage("status takes no argument 'rs1'", new String[] {"status", "rs1"});
        UsageException noRole = assertThrows(UsageException.class,
                () -> ClusterMain.Arguments.parse(new String[] {"kill"}).role("kill"));
        assertTrue(noRole.getMessage().contains("kill needs one ROLE"));
    }

    @Test
    void rolesAreNamedAsTheCommandLineNamesThem() {
        List<Role> roles = Role.all(2);
        assertEquals("[zk, tm1, tm2, master, rs1, rs2]", roles.toString());
        assertEquals(Role.regionServer(2), Role.named("RS2", roles));
        UsageException unknown = assertThrows(UsageException.class, () -> Role.named("rs3", roles));
        assertTrue(unknown.getMessage().contains("zk, tm1, tm2, master, rs1, rs2, tm-primary, tm-backup"),
                unknown.getMessage());
    }

    @Test
    void stateFileRoundTripsAndADamagedOneIsNamed(@TempDir Path dir) throws Exception {
        ClusterState state = new ClusterState("c", ClusterState.Status.RUNNING, 1,
                Map.of("zk", 2181, "tm1", 1, "tm2", 2, "master", 3, "rs1", 4), "/p");
        Path file = dir.resolve("cluster.properties");
        state.save(file);
        assertEquals(Optional.of(state), ClusterState.load(file));
        assertEquals("jdbc:phoenix:127.0.0.1:2181:/hbase", state.jdbcUrl());
        assertEquals(Optional.empty(), ClusterState.load(dir.resolve("none")));

        Files.writeString(file, "name=c\nstatus=SLEEPING\n");
        ClusterException damaged = assertThrows(ClusterException.class, () -> ClusterState.load(file));
        assertTrue(damaged.getMessage().contains(file.toString()), damaged.getMessage());
    }

    @Test
    void primaryAdvertisementIsParsedAsClientsParseIt() {
        assertEquals(Optional.of(new ZooKeeperProbe.Primary("127.0.0.1", 4321, 17)),
                ZooKeeperProbe.parse("127.0.0.1:4321#17\n"));
        assertEquals(Optional.of(new ZooKeeperProbe.Primary("::1", 1, 2)), ZooKeeperProbe.parse("[::1]:1#2"));
        assertEquals(Optional.empty(), ZooKeeperProbe.parse("not an endpoint"));
        assertEquals(Optional.empty(), ZooKeeperProbe.parse("h:port#x"));
    }

    /** The files as HBase and the TM server read them (Hadoop's Configuration): keys, ports, overrides last. */
    @Test
    void configurationFilesSayWhatTheRolesNeed(@TempDir Path dir) throws Exception {
        ClusterPaths paths = new ClusterPaths(dir.resolve("c"));
        ClusterState state = new ClusterState("c", ClusterState.Status.STARTING, 2,
                Map.of("zk", 2181, "tm1", 11, "tm2", 12, "master", 13, "rs1", 14, "rs2", 15), "/p");
        ConfigFiles.write(state, paths, Map.of("hbase.regionserver.handler.count", "30", "x.y", "z"));

        Configuration hbase = read(paths.hbaseSite());
        assertEquals(paths.hbaseRoot().toUri().toString(), hbase.get("hbase.rootdir"));
        assertEquals("true", hbase.get("hbase.cluster.distributed"));
        assertEquals("2181", hbase.get("hbase.zookeeper.property.clientPort"));
        assertEquals("13", hbase.get("hbase.master.port"));
        assertEquals("org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec",
                hbase.get("hbase.regionserver.wal.codec"));
        assertEquals("false", hbase.get("hbase.unsafe.stream.capability.enforce"));
        assertEquals("30", hbase.get("hbase.regionserver.handler.count"), "an override wins");
        assertEquals(null, hbase.get("hbase.coprocessor.region.classes"), "no coprocessor key: the classpath does it");

        Configuration tm = read(paths.tmSite());
        assertEquals("127.0.0.1:2181", tm.get("phoenix.txn.tm.zk.quorum"));
        assertEquals("/p", tm.get("phoenix.txn.tm.zk.path"));
        assertEquals("z", tm.get("x.y"));

        Configuration client = read(paths.clientConf().resolve("hbase-site.xml"));
        assertEquals("true", client.get("phoenix.transactions.enabled"));

        String zoo = Files.readString(paths.zooCfg());
        assertTrue(zoo.contains("clientPort=2181\n") && zoo.contains("clientPortAddress=127.0.0.1\n")
                && zoo.contains("dataDir=" + paths.zkData() + "\n"), zoo);
        assertTrue(Files.readString(paths.log4j()).contains("${" + ConfigFiles.LOG_FILE_PROPERTY + "}"));
    }

    private static Configuration read(Path site) {
        Configuration conf = new Configuration(false);
        conf.addResource(new org.apache.hadoop.fs.Path(site.toUri()));
        return conf;
    }

    private static void assertMessage(String expected, String[] args) {
        UsageException e = assertThrows(UsageException.class, () -> ClusterMain.Arguments.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
