package io.phoenixtxn.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code start} does with a previous cluster of the same name, and with a start that fails. The installation is
 * a fake (classpath files written by the test), so no HBase runs here.
 */
class StaleClusterTest {

    /** The installation is broken (a jar it lists is missing): the start fails before it launches anything. */
    @Test
    void leftoversOfAnInterruptedStartAreKilledAndTheirDataRemovedBeforeAnythingStarts(@TempDir Path tmp)
            throws Exception {
        ClusterPaths paths = new ClusterPaths(tmp.resolve("clusters/c"));
        Files.createDirectories(paths.dir());
        state(ClusterState.Status.STARTING).save(paths.state());
        Path oldData = Files.createDirectories(paths.hbaseRoot()).resolve("old-region");
        Files.writeString(oldData, "x");
        try (MarkedProcess zk = MarkedProcess.start(paths, "zk").awaitVisible(paths, "zk");
             MarkedProcess rs = MarkedProcess.start(paths, "rs1").awaitVisible(paths, "rs1")) {
            Installation broken = installation(tmp.resolve("repo"), "", tmp.resolve("no-such.jar").toString());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ClusterException failed = assertThrows(ClusterException.class,
                    () -> start(paths, broken, out).run(2, Map.of()));
            assertTrue(failed.getMessage().contains("no-such.jar is not a jar"), failed.getMessage());

            String printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.contains("Found 2 leftover processes of cluster c (its last state: STARTING)"), printed);
            assertTrue(printed.contains("Removing the previous data of cluster c"), printed);
            assertTrue(zk.process.waitFor(10, TimeUnit.SECONDS), "leftover zk killed");
            assertTrue(rs.process.waitFor(10, TimeUnit.SECONDS), "leftover rs1 killed");
            assertFalse(Files.exists(oldData), "the previous data is gone");
            assertEquals(List.of(), ProcessTable.members(paths));
        }
    }

    /**
     * ZooKeeper starts for real (its jars: this JVM's classpath); the TM servers have no jars and die: the start
     * fails naming a TM and its console file, kills ZooKeeper, and records FAILED.
     */
    @Test
    void aFailedStartKillsWhatItStartedAndNamesTheRoleThatFailed(@TempDir Path tmp) throws Exception {
        ClusterPaths paths = new ClusterPaths(tmp.resolve("clusters/c"));
        Installation zkOnly = installation(tmp.resolve("repo"), System.getProperty("java.class.path"), "");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ClusterException failed;
        try {
            failed = assertThrows(ClusterException.class, () -> start(paths, zkOnly, out).run(1, Map.of()));
        } finally {
            List<ProcessTable.Member> left = ProcessTable.members(paths);
            left.forEach(m -> ProcessHandle.of(m.pid()).ifPresent(ProcessHandle::destroyForcibly));
            assertEquals(List.of(), left, "ZooKeeper was killed with the failed start");
        }

        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("zk: serving"), printed);
        assertTrue(failed.getMessage().startsWith("tm1 ") || failed.getMessage().startsWith("tm2 "),
                failed.getMessage());
        assertTrue(failed.getMessage().contains("tm1.out") || failed.getMessage().contains("tm2.out"),
                failed.getMessage());
        assertEquals(ClusterState.Status.FAILED, ClusterState.load(paths.state()).orElseThrow().status());
    }

    @Test
    void aRunningClusterIsLeftAlone(@TempDir Path tmp) throws Exception {
        ClusterPaths paths = new ClusterPaths(tmp.resolve("clusters/c"));
        Files.createDirectories(paths.dir());
        state(ClusterState.Status.RUNNING).save(paths.state());
        try (MarkedProcess rs = MarkedProcess.start(paths, "rs1").awaitVisible(paths, "rs1")) {
            ClusterException refused = assertThrows(ClusterException.class,
                    () -> start(paths, installation(tmp.resolve("repo"), "", ""), new ByteArrayOutputStream())
                            .run(2, Map.of()));
            assertTrue(refused.getMessage().contains("cluster c is running"), refused.getMessage());
            assertTrue(refused.getMessage().contains("rs1 (pid " + rs.pid() + ")"), refused.getMessage());
            assertTrue(rs.process.isAlive());
            assertEquals(ClusterState.Status.RUNNING, ClusterState.load(paths.state()).orElseThrow().status());
        }
    }

    @Test
    void aDirectoryThatIsNoClusterIsNeverRemoved(@TempDir Path tmp) throws Exception {
        ClusterPaths paths = new ClusterPaths(tmp.resolve("clusters/c"));
        Path precious = Files.createDirectories(paths.dir()).resolve("precious.txt");
        Files.writeString(precious, "keep me");
        ClusterException refused = assertThrows(ClusterException.class,
                () -> start(paths, installation(tmp.resolve("repo"), "", ""), new ByteArrayOutputStream())
                        .run(2, Map.of()));
        assertTrue(refused.getMessage().contains("is not a cluster directory"), refused.getMessage());
        assertTrue(Files.exists(precious));
    }

    private static ClusterState state(ClusterState.Status status) {
        return new ClusterState("c", status, 2, Map.of("zk", 1, "tm1", 2, "tm2", 3, "master", 4, "rs1", 5, "rs2", 6),
                "/phoenix-txn");
    }

    private static StartCommand start(ClusterPaths paths, Installation installation, ByteArrayOutputStream out) {
        return new StartCommand(paths, "c", installation, new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    /** A repository "build" whose HBase classpath and our jars are the given lists; nothing else. */
    private static Installation installation(Path root, String hbaseLib, String phoenixTxnLib)
            throws IOException, ClusterException {
        Map<String, String> files = Map.of("cluster/target/classpath/hbase-lib.classpath", hbaseLib,
                "cluster/target/classpath/phoenix-txn-lib.classpath", phoenixTxnLib,
                "cluster/target/classpath/sqlline.classpath", "",
                "cluster-tm/target/classpath/tm-lib.classpath", "",
                "cluster-tm/target/classpath/tm-phoenix-txn-lib.classpath", "");
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.createDirectories(root.resolve(file.getKey()).getParent());
            Files.writeString(root.resolve(file.getKey()), file.getValue());
        }
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/jdk17-flags.properties"), "jdk17.flags=\n");
        return Installation.at(root);
    }
}
