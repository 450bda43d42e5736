package io.phoenixtxn.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessTableTest {

    @Test
    void findsAProcessByItsMarkersAndFollowsItThroughSignals(@TempDir Path dir) throws Exception {
        ClusterPaths paths = new ClusterPaths(dir.resolve("c1"));
        Role role = new Role("tm1", Role.Kind.TM);
        try (MarkedProcess p = MarkedProcess.start(paths, "tm1").awaitVisible(paths, "tm1")) {
            // The test's `sh -c "sleep 120; true" markers...` forks a child that carries the markers until it execs
            // sleep: wait for that moment to pass instead of catching it.
            awaitMembers(paths, List.of(new ProcessTable.Member(p.pid(), "tm1")));
            assertEquals(ProcessTable.State.UP, ProcessTable.state(paths, role, p.pid()));

            ProcessTable.signal(p.pid(), "STOP");
            awaitState(paths, role, p.pid(), ProcessTable.State.PAUSED);
            ProcessTable.signal(p.pid(), "CONT");
            awaitState(paths, role, p.pid(), ProcessTable.State.UP);

            ProcessTable.signal(p.pid(), "KILL");
            assertTrue(ProcessTable.awaitExit(paths, role, p.pid(), 10_000));
            assertEquals(List.of(), ProcessTable.members(paths));
        }
    }

    /** A pid that does not carry both markers is never taken for a role (a pid reused after a crash). */
    @Test
    void aPidWithoutBothMarkersIsNotTheRole(@TempDir Path dir) throws Exception {
        ClusterPaths paths = new ClusterPaths(dir.resolve("c1"));
        ClusterPaths other = new ClusterPaths(dir.resolve("c2"));
        Role tm1 = new Role("tm1", Role.Kind.TM);
        Role tm2 = new Role("tm2", Role.Kind.TM);
        try (MarkedProcess p = MarkedProcess.start(paths, "tm1").awaitVisible(paths, "tm1")) {
            assertFalse(ProcessTable.isMember(paths, tm2, p.pid()), "another role");
            assertFalse(ProcessTable.isMember(other, tm1, p.pid()), "another cluster");
            assertEquals(ProcessTable.State.DEAD, ProcessTable.state(other, tm1, p.pid()));
            assertEquals(List.of(), ProcessTable.members(other));
            long self = ProcessHandle.current().pid();
            assertFalse(ProcessTable.isMember(paths, tm1, self));

            // a pid file naming an unrelated process is ignored; the role is found by its markers
            Files.createDirectories(paths.roleDir(tm1));
            Files.writeString(paths.pid(tm1), self + "\n");
            assertEquals(p.pid(), ProcessTable.pidOf(paths, tm1).orElseThrow());
        }
    }

    private static void awaitMembers(ClusterPaths paths, List<ProcessTable.Member> wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!ProcessTable.members(paths).equals(wanted)) {
            if (System.nanoTime() - deadline > 0) {
                assertEquals(wanted, ProcessTable.members(paths));
            }
            Thread.sleep(10);
        }
    }

    private static void awaitState(ClusterPaths paths, Role role, long pid, ProcessTable.State wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ProcessTable.state(paths, role, pid) != wanted) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still " + ProcessTable.state(paths, role, pid) + ", not " + wanted);
            }
            Thread.sleep(10);
        }
    }
}
