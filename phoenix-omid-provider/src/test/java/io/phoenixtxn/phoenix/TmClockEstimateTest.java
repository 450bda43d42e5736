package io.phoenixtxn.phoenix;

import org.junit.jupiter.api.Test;

import static io.phoenixtxn.phoenix.TmClockEstimate.TIMESTAMPS_PER_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TmClockEstimateTest {
    @Test
    void withoutObservationsTheLocalClock() {
        assertEquals(5_000 * TIMESTAMPS_PER_MS, new TmClockEstimate().provisionalId(5_000));
    }

    /** Review F-A: a TM leading this client's clock (skew, or a new primary's epoch) is followed. */
    @Test
    void aLeadingTmIsFollowedAsTheLocalClockAdvances() {
        TmClockEstimate clock = new TmClockEstimate();
        clock.observed(15_000 * TIMESTAMPS_PER_MS + 7, 5_000); // the TM leads by 10 s
        assertEquals(15_000 * TIMESTAMPS_PER_MS + 8, clock.provisionalId(5_000), "just above what was seen");
        assertEquals(16_000 * TIMESTAMPS_PER_MS + 7, clock.provisionalId(6_000), "local clock plus the lead");
    }

    @Test
    void aLaggingTmNeverPullsTheIdBelowTheLocalClockNorBelowWhatWasSeen() {
        TmClockEstimate clock = new TmClockEstimate();
        clock.observed(20_000 * TIMESTAMPS_PER_MS, 5_000);
        clock.observed(4_000 * TIMESTAMPS_PER_MS, 6_000); // an older answer arriving late: lead now negative
        assertTrue(clock.provisionalId(6_000) > 20_000 * TIMESTAMPS_PER_MS, "never below the newest seen");
        clock.observed(0, 7_000); // no timestamp (read-only commit): ignored
        assertEquals(30_000 * TIMESTAMPS_PER_MS, clock.provisionalId(30_000));
    }
}
