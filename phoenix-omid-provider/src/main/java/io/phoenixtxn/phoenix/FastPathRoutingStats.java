package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathAbortedException;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * JVM-wide counts of how Phoenix statements were routed (design.md sec. 4.11, Phoenix mapping): TM begins the
 * provider made, transactions that ended without ever beginning at the TM, single-row writes committed on the fast
 * path, fast-path aborts retried as regular transactions (by reason). Tests and benchmarks read differences.
 */
public final class FastPathRoutingStats {
    private static final AtomicLong TM_BEGINS = new AtomicLong();
    private static final AtomicLong ENDED_WITHOUT_TM = new AtomicLong();
    private static final AtomicLong FAST_PATH_WRITES = new AtomicLong();
    private static final AtomicLong FAST_PATH_READS = new AtomicLong();
    private static final Map<FastPathAbortedException.Reason, AtomicLong> ABORTS =
            new EnumMap<>(FastPathAbortedException.Reason.class);

    static {
        for (FastPathAbortedException.Reason r : FastPathAbortedException.Reason.values()) {
            ABORTS.put(r, new AtomicLong());
        }
    }

    private FastPathRoutingStats() {
    }

    static void tmBegin() {
        TM_BEGINS.incrementAndGet();
    }

    static void endWithoutTm() {
        ENDED_WITHOUT_TM.incrementAndGet();
    }

    static void fastPathWrite() {
        FAST_PATH_WRITES.incrementAndGet();
    }

    static void fastPathRead() {
        FAST_PATH_READS.incrementAndGet();
    }

    static void aborted(FastPathAbortedException.Reason reason) {
        ABORTS.get(reason).incrementAndGet();
    }

    /** Transactions the provider began at the TM (index populations excluded: they start at their fence). */
    public static long tmBegins() {
        return TM_BEGINS.get();
    }

    /** Phoenix transactions that ended (committed, rolled back) without a TM round trip. */
    public static long endedWithoutTm() {
        return ENDED_WITHOUT_TM.get();
    }

    /** Single-row writes committed on the fast path (bwc). */
    public static long fastPathWrites() {
        return FAST_PATH_WRITES.get();
    }

    /** Point reads served on the fast path (brc). */
    public static long fastPathReads() {
        return FAST_PATH_READS.get();
    }

    /** Fast-path writes that aborted for {@code reason} (then retried as regular transactions, unless FENCED). */
    public static long aborts(FastPathAbortedException.Reason reason) {
        return ABORTS.get(reason).get();
    }
}
