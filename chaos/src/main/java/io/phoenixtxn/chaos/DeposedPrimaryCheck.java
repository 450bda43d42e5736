package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.DecisionLog.Decision;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pause fault's safety claim (issue 14): a TM primary stopped past its lease and then continued commits nothing
 * afterwards. Checked on what the clients received: the primary that took over serves timestamps above its epoch
 * (the reservation the deposed one held, design, HA), so a commit decision received after the SIGCONT whose commit
 * timestamp is at or below that epoch came from the deposed primary (or an older one): a violation. The check is
 * only as strong as the decisions it is given; the report says how many there were.
 */
final class DeposedPrimaryCheck {
    /** The outcome: the decisions received after the resume, and those from a deposed primary (must be none). */
    record Result(int afterResume, List<String> violations) {
    }

    private DeposedPrimaryCheck() {
    }

    /**
     * @param resumedAt      run-clock time of the SIGCONT
     * @param successorEpoch the epoch advertised by the primary that took over during the pause
     * @param decisions      per client, the decisions it received (run-clock times)
     */
    static Result check(long resumedAt, long successorEpoch, Map<String, List<Decision>> decisions) {
        int after = 0;
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, List<Decision>> e : decisions.entrySet()) {
            for (Decision d : e.getValue()) {
                if (d.timeNanos() <= resumedAt) {
                    continue;
                }
                after++;
                if (d.commitTs() <= successorEpoch) {
                    violations.add("client " + e.getKey() + " received at " + RunClock.seconds(d.timeNanos())
                            + " a commit of transaction " + d.txId() + " at " + d.commitTs() + ", not above the"
                            + " successor's epoch " + successorEpoch + ": the deposed primary committed after its"
                            + " resume");
                }
            }
        }
        return new Result(after, violations);
    }
}
