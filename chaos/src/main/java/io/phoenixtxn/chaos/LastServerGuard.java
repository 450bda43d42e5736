package io.phoenixtxn.chaos;

import io.phoenixtxn.cluster.ClusterException;
import io.phoenixtxn.cluster.ProcessTable;

import java.util.List;

/**
 * Never lets a region-server fault take down the last region server. Region-server faults are never mixed with each
 * other, so another region server found down right before a kill went down outside any fault: a region server
 * aborts on its own when its ZooKeeper session expires, for instance after a ZooKeeper restart that it did not
 * reconnect to within the session timeout (seen in the second 30-minute run: the next step then killed the other
 * one, and no region could open for 180 s). It is restarted before the kill; if that fails the kill is skipped.
 */
final class LastServerGuard {
    /** The cluster operations the guard needs ({@link ClusterControl} is one). */
    interface Servers {
        List<String> regionServerRoles();

        ProcessTable.State stateOf(String role);

        void restart(String role) throws ClusterException;
    }

    private LastServerGuard() {
    }

    /**
     * Brings every region server other than {@code victim} up; notes what it did on {@code record}. False (with a
     * problem noted) if one could not be brought back: then the victim must not be killed.
     */
    static boolean othersUp(Servers servers, String victim, FaultRecord record) {
        for (String other : servers.regionServerRoles()) {
            ProcessTable.State state = servers.stateOf(other);
            if (other.equals(victim) || state == ProcessTable.State.UP) {
                continue;
            }
            try {
                servers.restart(other);
                record.note(other + " was " + state + " before the kill of " + victim + ", outside any fault;"
                        + " restarted first");
            } catch (ClusterException e) {
                record.problem(other + " was " + state + " before the kill of " + victim + " and could not be"
                        + " restarted (" + e.getMessage() + "); " + victim + " was not killed");
                return false;
            }
        }
        return true;
    }
}
