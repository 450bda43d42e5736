package io.phoenixtxn.chaos;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A fault's window: to the first commit invoked at or after it, of the clients it could stall. */
class UnavailabilityTest {
    private static final List<Unavailability.Commit> COMMITS = List.of(
            new Unavailability.Commit("a", 90, 150),   // invoked before the fault: decided before, proves nothing
            new Unavailability.Commit("b", 100, 400),
            new Unavailability.Commit("a", 120, 300),
            new Unavailability.Commit("b", 130, 250));

    @Test
    void theFirstCommitInvokedAtOrAfterTheFaultEndsTheWindow() {
        assertEquals(150L, Unavailability.window(100, null, COMMITS), "b's commit invoked at 100 completed at 250");
        assertEquals(150L, Unavailability.window(100, Set.of(), COMMITS));
    }

    @Test
    void onlyTheClientsTheFaultCouldStallCount() {
        assertEquals(200L, Unavailability.window(100, Set.of("a"), COMMITS));
        assertNull(Unavailability.window(100, Set.of("c"), COMMITS), "no commit of c: not recovered");
        assertNull(Unavailability.window(131, null, COMMITS));
    }

    @Test
    void medianAndMax() {
        assertEquals(3L, Unavailability.median(List.of(5L, 1L, 3L)));
        assertEquals(3L, Unavailability.median(List.of(4L, 2L)));
        assertEquals(5L, Unavailability.max(List.of(5L, 1L, 3L)));
    }
}
