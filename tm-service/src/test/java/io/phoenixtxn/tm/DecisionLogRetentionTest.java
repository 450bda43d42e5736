package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The decision log's memory is bounded: the oldest decisions are forgotten (first raising the horizon, so a
 * question about a forgotten one is UNKNOWN, never NOT_DECIDED), recent ones are answered, and in-progress marks
 * come and go without disturbing either.
 */
class DecisionLogRetentionTest {

    @Test
    void forgottenDecisionsAreUnknownAndRecentOnesDecided() throws Exception {
        int retained = 256; // four per stripe
        DecisionLog log = new DecisionLog(retained, 0, TimeUnit.SECONDS.toMillis(10));
        int decisions = 10_000;
        for (long tx = 1; tx <= decisions; tx++) {
            log.deciding(tx * 10);
            log.decided(tx * 10, tx * 10 + 5);
        }
        assertEquals(retained, log.size(), "whole stripes of the retained decisions");
        int decided = 0;
        int unknown = 0;
        for (long tx = 1; tx <= decisions; tx++) {
            PendingStatus status = log.status(tx * 10).get();
            if (status.kind() == PendingStatus.Kind.DECIDED) {
                assertEquals(tx * 10 + 5, status.commitTs());
                decided++;
            } else {
                assertEquals(PendingStatus.Kind.UNKNOWN, status.kind(), "tx " + tx * 10 + ": forgotten decisions"
                        + " must not look undecided");
                unknown++;
            }
        }
        assertEquals(retained, decided);
        assertEquals(decisions - retained, unknown);
        assertEquals(PendingStatus.Kind.NOT_DECIDED, log.status(decisions * 10L + 1).get().kind());
    }

    @Test
    void abandonedCommitsLeaveNoTraceAndAResentCommitKeepsTheLatestDecision() throws Exception {
        DecisionLog log = new DecisionLog(64, 0, TimeUnit.SECONDS.toMillis(10));
        for (long tx = 1; tx <= 1_000; tx++) {
            log.deciding(tx);
            log.abandoned(tx);
        }
        assertEquals(0, log.size());
        assertEquals(PendingStatus.Kind.NOT_DECIDED, log.status(500).get().kind());
        log.deciding(2_000);
        log.decided(2_000, 2_001);
        log.deciding(2_000);
        log.decided(2_000, 2_003);
        assertEquals(2_003, log.status(2_000).get().commitTs());
        assertEquals(1, log.size());
    }
}
