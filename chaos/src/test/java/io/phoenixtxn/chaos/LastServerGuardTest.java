package io.phoenixtxn.chaos;

import io.phoenixtxn.cluster.ClusterException;
import io.phoenixtxn.cluster.ProcessTable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LastServerGuardTest {

    /** Region servers rs1..rs3 in the given states; restarts bring a role UP unless it is in {@code broken}. */
    private static final class FakeServers implements LastServerGuard.Servers {
        final Map<String, ProcessTable.State> states = new HashMap<>();
        final List<String> restarted = new ArrayList<>();
        final List<String> broken = new ArrayList<>();

        @Override
        public List<String> regionServerRoles() {
            return List.of("rs1", "rs2", "rs3");
        }

        @Override
        public ProcessTable.State stateOf(String role) {
            return states.getOrDefault(role, ProcessTable.State.UP);
        }

        @Override
        public void restart(String role) throws ClusterException {
            restarted.add(role);
            if (broken.contains(role)) {
                throw new ClusterException(role + " did not come up");
            }
            states.put(role, ProcessTable.State.UP);
        }
    }

    @Test
    void withEveryOtherServerUpNothingIsRestarted() {
        FakeServers servers = new FakeServers();
        FaultRecord record = new FaultRecord(FaultKind.RS, false);
        assertTrue(LastServerGuard.othersUp(servers, "rs1", record));
        assertEquals(List.of(), servers.restarted);
        assertEquals(List.of(), record.notes());
    }

    @Test
    void anotherServerThatDiedOutsideAFaultIsRestartedBeforeTheKill() {
        FakeServers servers = new FakeServers();
        servers.states.put("rs2", ProcessTable.State.DEAD);
        servers.states.put("rs1", ProcessTable.State.DEAD); // the victim itself is not the guard's business
        FaultRecord record = new FaultRecord(FaultKind.RS, true);
        assertTrue(LastServerGuard.othersUp(servers, "rs1", record));
        assertEquals(List.of("rs2"), servers.restarted);
        assertTrue(record.notes().get(0).startsWith("rs2 was DEAD before the kill of rs1"), record.notes().toString());
        assertEquals(List.of(), record.problems());
    }

    @Test
    void aServerThatCannotBeBroughtBackStopsTheKill() {
        FakeServers servers = new FakeServers();
        servers.states.put("rs3", ProcessTable.State.PAUSED);
        servers.broken.add("rs3");
        FaultRecord record = new FaultRecord(FaultKind.COMMIT_TABLE_RS, false);
        assertFalse(LastServerGuard.othersUp(servers, "rs1", record));
        assertTrue(record.problems().get(0).contains("rs1 was not killed"), record.problems().toString());
    }

    @Test
    void afterAZooKeeperRestartEveryServerThatAbortedIsRestartedWithTheCauseNotedButNotAnotherFaultsVictim() {
        FakeServers servers = new FakeServers();
        servers.states.put("rs1", ProcessTable.State.DEAD);
        servers.states.put("rs3", ProcessTable.State.DEAD);
        FaultRecord record = new FaultRecord(FaultKind.ZK, false);
        servers.states.put("rs2", ProcessTable.State.DEAD); // killed by a region-server fault of the same step
        assertTrue(LastServerGuard.allUp(servers, "rs2"::equals, record, "13.0 s after the ZooKeeper restart", null));
        assertEquals(List.of("rs1", "rs3"), servers.restarted, "the fault's own victim is the fault's to restart");
        assertEquals(2, record.notes().size(), record.notes().toString());
        assertTrue(record.notes().get(1).startsWith("rs3 was DEAD 13.0 s after the ZooKeeper restart"),
                record.notes().toString());
        assertEquals(List.of(), record.problems());
    }
}
