package io.phoenixtxn.bench.workload;

import io.phoenixtxn.coprocessor.GcHorizon;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;

import java.util.concurrent.TimeUnit;

/**
 * Before a benchmark's flush + major compaction: waits until the region server's GC horizon (asked of the TM now,
 * the stack's region server being in this JVM) is past a moment, so compaction-time GC may collect everything
 * written before it. Phoenix's own server-side transactions, which its client never ends at the TM, hold the horizon
 * until their leases run out, hence the wait.
 */
final class GcReady {
    private static final long WAIT_S = 180;

    private GcReady() {
    }

    /** A timestamp above every transaction begun so far (the embedded TM's clock is this JVM's). */
    static long now() {
        return TimestampLayout.firstSlotOfMillis(System.currentTimeMillis() + 1);
    }

    /**
     * Waits for the GC horizon to pass {@code ts}; returns how long it took, or fails after three minutes. The horizon
     * follows the TM's clock only as transactions begin, so each round begins and ends one at the TM.
     */
    static long awaitHorizonPast(TransactionManager tm, long ts) throws InterruptedException, TmException {
        long started = System.nanoTime();
        long deadline = started + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (true) {
            tm.finished(new long[] {tm.begin()});
            Horizon h = GcHorizon.refreshNow();
            if (h.gc() > ts) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The GC horizon " + h + " did not pass " + ts + " in " + WAIT_S
                        + " s: a transaction is still open");
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
