package io.phoenixtxn.client.fastpath;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the fast path of one {@link FastPathClient} did: operations the fast path committed, and fast-path aborts by
 * {@link FastPathAbortedException.Reason} (each of which the client either fell back on a regular transaction for or
 * threw). Issue 12 bounds the fallbacks of a fast-path-only load (no regular writer: only
 * {@link FastPathAbortedException.Reason#SLOT_UNAVAILABLE} can abort it) below 1%; this is how that is counted, by
 * tests, benchmarks and monitoring. Thread-safe; counts only go up.
 */
public final class FastPathStats {
    private final LongAdder committed = new LongAdder();
    private final Map<FastPathAbortedException.Reason, LongAdder> aborted =
            new EnumMap<>(FastPathAbortedException.Reason.class);

    FastPathStats() {
        for (FastPathAbortedException.Reason reason : FastPathAbortedException.Reason.values()) {
            aborted.put(reason, new LongAdder());
        }
    }

    void committed() {
        committed.increment();
    }

    void aborted(FastPathAbortedException.Reason reason) {
        aborted.get(reason).increment();
    }

    /** Operations the fast path committed (including a brwc whose function chose to write nothing). */
    public long fastPathCommits() {
        return committed.sum();
    }

    /** Fast-path attempts aborted for {@code reason}. */
    public long aborts(FastPathAbortedException.Reason reason) {
        return aborted.get(reason).sum();
    }

    /** Fast-path attempts aborted for any reason. */
    public long aborts() {
        long sum = 0;
        for (LongAdder a : aborted.values()) {
            sum += a.sum();
        }
        return sum;
    }

    /** Aborted attempts over all attempts (0 when none was made). */
    public double abortRatio() {
        long aborts = aborts();
        long all = aborts + fastPathCommits();
        return all == 0 ? 0 : (double) aborts / all;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FastPathStats{committed=").append(fastPathCommits());
        for (Map.Entry<FastPathAbortedException.Reason, LongAdder> e : aborted.entrySet()) {
            sb.append(", ").append(e.getKey()).append('=').append(e.getValue().sum());
        }
        return sb.append('}').toString();
    }
}
