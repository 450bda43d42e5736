package io.phoenixtxn.chaos;

import io.phoenixtxn.cluster.ClusterException;
import io.phoenixtxn.cluster.ProcessTable;

import java.util.List;
import java.util.function.Predicate;

/**
 * Never lets a region-server fault take down the last region server. Region-server faults are never mixed with each
 * other, so another region server found down right before a kill went down outside any fault: a region server
 * aborts on its own when its ZooKeeper session expires, for instance after a ZooKeeper restart that it did not
 * reconnect to within the session timeout (seen in the second 30-minute run: the next step then killed the other
 * one, and no region could open for 180 s). It is restarted before the kill; if that fails the kill is skipped. The
 * nemesis also keeps the other region servers up while it waits for a killed one's regions to reopen, and restarts
 * any that went down within the session timeout after a ZooKeeper restart.
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
        return allUp(servers, victim::equals, record, "before the kill of " + victim, victim + " was not killed");
    }

    /**
     * Brings every region server up that {@code skip} does not name (one a fault holds down is the fault's to
     * restart), noting each one found down {@code when}; false, with a problem noted that ends with
     * {@code consequence} (may be null), if one could not be restarted.
     */
    static boolean allUp(Servers servers, Predicate<String> skip, FaultRecord record, String when,
                         String consequence) {
        for (String other : servers.regionServerRoles()) {
            if (skip.test(other)) {
                continue;
            }
            ProcessTable.State state = servers.stateOf(other);
            if (state == ProcessTable.State.UP) {
                continue;
            }
            try {
                servers.restart(other);
                record.note(other + " was " + state + " " + when + ", outside any fault; restarted");
            } catch (ClusterException e) {
                record.problem(other + " was " + state + " " + when + " and could not be restarted ("
                        + e.getMessage() + ")" + (consequence == null ? "" : "; " + consequence));
                return false;
            }
        }
        return true;
    }
}
