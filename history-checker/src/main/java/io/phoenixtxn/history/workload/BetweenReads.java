package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.record.Recorder;

import java.time.Duration;

/**
 * Called by the broken read mode between its per-key transactions. The default does nothing; {@link
 * #awaitAcknowledged} waits until writers have committed something meanwhile, so that the missing snapshot shows
 * in the history instead of depending on luck, waiting on the recorder's condition and bounded in time.
 */
@FunctionalInterface
public interface BetweenReads {
    BetweenReads NOTHING = () -> { };

    void afterRead() throws InterruptedException;

    /** Waits until {@code count} more operations of function {@code f} were acknowledged, at most {@code max}. */
    static BetweenReads awaitAcknowledged(Recorder recorder, String f, int count, Duration max) {
        return () -> recorder.awaitOkCount(f, recorder.okCount(f) + count, max);
    }
}
