package io.phoenixtxn.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class PopulationPacerTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long[] clock = {1_000 * MS};
    private final PopulationPacer pacer = new PopulationPacer(() -> clock[0], nanos -> clock[0] += nanos);

    @Test
    void aQuietBuildNeverPauses() {
        pacer.enter();
        assertEquals(0, pacer.pauseFor(100 * MS));
    }

    @Test
    void otherWorkSeenWhileNoPopulationRanIsNotCounted() {
        pacer.foregroundSeen(); // no population running: not recorded
        pacer.enter();
        assertEquals(0, pacer.pauseFor(100 * MS));
    }

    @Test
    void oneBuildUnderLoadWorksAQuarterOfTheTimeAtTheDefaultShare() {
        pacer.enter();
        pacer.foregroundSeen();
        assertEquals(300 * MS, pacer.pauseFor(100 * MS));
    }

    @Test
    void concurrentBuildsShareTheShare() {
        for (int i = 0; i < 4; i++) {
            pacer.enter();
        }
        pacer.foregroundSeen();
        // 4 builds at 25% together: each works 1/16 of the time, pausing 15 times its work
        assertEquals(150 * MS, pacer.pauseFor(10 * MS));
        assertEquals(PopulationPacer.MAX_PAUSE_NANOS, pacer.pauseFor(500 * MS), "pauses are capped");
        pacer.leave();
        pacer.leave();
        pacer.leave();
        assertEquals(30 * MS, pacer.pauseFor(10 * MS), "alone again: a quarter of the time");
    }

    @Test
    void aLongBatchPausesInProportionUpToTheCap() {
        pacer.configure(Map.of("phoenix.txn.index.population.load.share.percent", "75")::get);
        pacer.enter();
        pacer.foregroundSeen();
        assertEquals(400 * MS, pacer.pauseFor(1_200 * MS), MS, "a third of the work at 75%, even past 1 s of work");
        assertEquals(PopulationPacer.MAX_PAUSE_NANOS, pacer.pauseFor(TimeUnit.HOURS.toNanos(1)));
    }

    @Test
    void otherWorkOlderThanTheWindowNoLongerSlowsTheBuild() {
        pacer.enter();
        pacer.foregroundSeen();
        clock[0] += 999 * MS;
        assertEquals(30 * MS, pacer.pauseFor(10 * MS));
        clock[0] += 2 * MS;
        assertEquals(0, pacer.pauseFor(10 * MS), "1 s window by default");
    }

    @Test
    void theShareAndTheWindowComeFromTheRegionServersConfiguration() {
        pacer.configure(Map.of("phoenix.txn.index.population.load.share.percent", "200",
                "phoenix.txn.index.population.load.window.ms", "10")::get);
        pacer.enter();
        pacer.foregroundSeen();
        assertEquals(0, pacer.pauseFor(10 * MS), "a share of two handlers leaves one build unpaced");
        pacer.enter();
        pacer.enter();
        assertEquals(5 * MS, pacer.pauseFor(10 * MS), "three builds on two handlers' share: 1.5 - 1");
        clock[0] += 11 * MS;
        assertEquals(0, pacer.pauseFor(10 * MS), "past the 10 ms window");

        pacer.configure(Map.of("phoenix.txn.index.population.load.share.percent", "0")::get);
        pacer.foregroundSeen();
        assertEquals(0, pacer.pauseFor(10 * MS), "0 turns pacing off");
    }

    @Test
    void afterWorkSleepsAndCountsThePause() throws InterruptedIOException {
        pacer.enter();
        pacer.foregroundSeen();
        long before = clock[0];
        pacer.afterWork(20 * MS);
        assertEquals(60 * MS, clock[0] - before);
        assertEquals(60 * MS, pacer.pausedNanos());
        assertEquals(1, pacer.pauses());
    }

    @Test
    void anInterruptedPauseFailsThePageAndKeepsTheInterrupt() {
        PopulationPacer interrupted = new PopulationPacer(() -> clock[0], nanos -> {
            throw new InterruptedException();
        });
        interrupted.enter();
        interrupted.foregroundSeen();
        try {
            assertThrows(InterruptedIOException.class, () -> interrupted.afterWork(10 * MS));
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }
}
