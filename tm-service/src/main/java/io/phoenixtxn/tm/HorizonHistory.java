package io.phoenixtxn.tm;

import java.util.ArrayDeque;

/**
 * The GC horizons a TM has published, with when (monotonic nanos), so it can also say which horizon was in force
 * long enough ago: {@link Horizon#commitPointSafe()}. A transaction below a horizon published at time t had left the
 * open set before t, so any commit decision it got was made before t, and its client gives up writing the commit
 * point a bounded time after receiving it; once that bound (the lag) has passed since t, it writes none any more.
 */
final class HorizonHistory {
    private final long lagNanos;
    /** Published (gc horizon, nanos) pairs younger than the lag, oldest first; horizons strictly increase. */
    private final ArrayDeque<long[]> recent = new ArrayDeque<>();
    private long gc = -1;
    private long commitPointSafe = -1;

    HorizonHistory(long lagNanos) {
        this.lagNanos = lagNanos;
    }

    /** Records a freshly computed horizon and answers both, never lower than before. */
    synchronized Horizon record(long computed, long nowNanos) {
        if (computed > gc) {
            gc = computed;
            recent.addLast(new long[] {computed, nowNanos});
        }
        while (!recent.isEmpty() && nowNanos - recent.peekFirst()[1] >= lagNanos) {
            commitPointSafe = Math.max(commitPointSafe, recent.pollFirst()[0]);
        }
        return new Horizon(gc, commitPointSafe);
    }
}
