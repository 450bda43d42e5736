package io.phoenixtxn.phoenix;

import java.util.concurrent.atomic.AtomicLong;

/**
 * This client's estimate of the TM's clock, for the provisional ids of transactions begun lazily (design.md sec.
 * 4.11). Phoenix resolves table metadata at the id it is shown; a provisional id below the timestamp of DDL that has
 * already happened makes Phoenix miss that DDL (a table created a moment ago is "undefined", a column "not found").
 * DDL on transactional tables is stamped with TM timestamps, and the TM's clock may lead this client's: a clock skew
 * between hosts, or the epoch a new TM primary reserves ahead of the wall clock after a failover. So a provisional id
 * is the larger of (a) the local clock plus the TM's lead at the latest TM timestamp this client saw and (b) just
 * above the newest TM timestamp it saw: a statement after this client's own DDL, begin or commit always resolves
 * above it, and other clients' DDL is seen as soon as the TM's clock has passed it, up to the error of the lead
 * (which is renewed by every TM answer). An estimate above the TM's clock is harmless: metadata resolution can only
 * return what is already written, whose timestamps are below any snapshot the TM issues afterwards.
 */
final class TmClockEstimate {
    /** Our layout (and Phoenix's conversion, TransactionUtil.convertToMilliseconds): ms * 1e6 + offset. */
    static final long TIMESTAMPS_PER_MS = 1_000_000L;

    private final AtomicLong newest = new AtomicLong();
    /** TM timestamp minus the local clock (both in timestamp units) at the latest observation; may be negative. */
    private volatile long lead;

    /** A timestamp the TM issued (start, commit, fence), seen at {@code localMs} on this client's clock. */
    void observed(long tmTimestamp, long localMs) {
        if (tmTimestamp <= 0) {
            return; // none (e.g. the commit timestamp of a read-only transaction)
        }
        newest.accumulateAndGet(tmTimestamp, Math::max);
        lead = tmTimestamp - localMs * TIMESTAMPS_PER_MS;
    }

    /** The provisional id at {@code localMs} on this client's clock. */
    long provisionalId(long localMs) {
        long local = localMs * TIMESTAMPS_PER_MS;
        return Math.max(local + Math.max(0, lead), newest.get() + 1);
    }
}
