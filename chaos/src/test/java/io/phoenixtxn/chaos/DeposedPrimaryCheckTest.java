package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.DecisionLog.Decision;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pause fault's claim on the clients' decision logs: nothing at or below the successor's epoch after SIGCONT. */
class DeposedPrimaryCheckTest {
    private static final long RESUMED_AT = 10_000;
    private static final long EPOCH = 5_000_000;

    @Test
    void decisionsAboveTheSuccessorsEpochAfterTheResumeAreFine() {
        DeposedPrimaryCheck.Result r = DeposedPrimaryCheck.check(RESUMED_AT, EPOCH, Map.of(
                "c0-g1", List.of(new Decision(9_000, 10, 4_000_000), new Decision(11_000, 20, EPOCH + 1)),
                "c1-g1", List.of(new Decision(12_000, 30, EPOCH + 7))));
        assertEquals(2, r.afterResume(), "decisions before the resume are not counted");
        assertTrue(r.violations().isEmpty(), r.violations().toString());
    }

    @Test
    void aCommitTimestampAtOrBelowTheEpochAfterTheResumeIsTheDeposedPrimarysCommit() {
        DeposedPrimaryCheck.Result r = DeposedPrimaryCheck.check(RESUMED_AT, EPOCH, Map.of(
                "c0-g1", List.of(new Decision(10_001, 40, EPOCH)),
                "c1-g1", List.of(new Decision(10_500, 41, EPOCH - 3), new Decision(10_600, 42, EPOCH + 3))));
        assertEquals(3, r.afterResume());
        assertEquals(2, r.violations().size(), r.violations().toString());
        assertTrue(r.violations().stream().anyMatch(v -> v.contains("transaction 40")), r.violations().toString());
        assertTrue(r.violations().stream().anyMatch(v -> v.contains("transaction 41")), r.violations().toString());
    }
}
