package io.phoenixtxn.chaos;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fault plan: every fault once alone first; mixed steps never pair two faults of one group; seeded. */
class FaultPlanTest {
    private static final Set<FaultKind> ALL = EnumSet.allOf(FaultKind.class);

    @Test
    void theFirstPassIsEveryEnabledFaultOnceAndAlone() {
        FaultPlan plan = new FaultPlan(ALL, 7);
        Set<FaultKind> seen = EnumSet.noneOf(FaultKind.class);
        for (int i = 0; i < ALL.size(); i++) {
            assertFalse(plan.firstPassDone());
            FaultPlan.Step step = plan.next();
            assertFalse(step.mixed(), "step " + i + " of the first pass: " + step);
            assertTrue(seen.add(step.faults().get(0)), "twice in the first pass: " + step);
        }
        assertTrue(plan.firstPassDone());
        assertEquals(ALL, seen);
    }

    @Test
    void mixedStepsPairFaultsOfDifferentGroupsOnly() {
        FaultPlan plan = new FaultPlan(ALL, 11);
        int mixed = 0;
        for (int i = 0; i < 10 * ALL.size(); i++) {
            FaultPlan.Step step = plan.next();
            if (step.mixed()) {
                mixed++;
                assertEquals(2, step.faults().size());
                assertTrue(step.faults().get(0).mixesWith(step.faults().get(1)), step.toString());
            }
        }
        assertTrue(mixed > 0, "no mixed step in ten passes");
    }

    @Test
    void theSameSeedGivesTheSamePlan() {
        assertEquals(steps(new FaultPlan(ALL, 3), 40), steps(new FaultPlan(ALL, 3), 40));
        assertFalse(steps(new FaultPlan(ALL, 3), 40).equals(steps(new FaultPlan(ALL, 4), 40)),
                "two seeds, one plan (possible, but not for these)");
    }

    @Test
    void faultListsAreParsedByReportName() {
        assertEquals(EnumSet.of(FaultKind.TM, FaultKind.CLIENT_AFTER_DECISION, FaultKind.CLIENT_AFTER_COMMIT_POINT),
                FaultKind.parseList("tm, client"));
        assertEquals(ALL, FaultKind.parseList("all"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FaultKind.parseList("tm,x"));
        assertTrue(e.getMessage().contains("no fault 'x'") && e.getMessage().contains("pause"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FaultKind.parseList(" , "));
    }

    private static List<FaultPlan.Step> steps(FaultPlan plan, int n) {
        List<FaultPlan.Step> steps = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            steps.add(plan.next());
        }
        return steps;
    }

    @Test
    void singleKindPlansNeverMix() {
        FaultPlan plan = new FaultPlan(EnumSet.of(FaultKind.TM, FaultKind.PAUSE), 5);
        Set<Boolean> mixed = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            mixed.add(plan.next().mixed());
        }
        assertEquals(Set.of(false), mixed, "tm and pause are one group: never in effect together");
    }
}
