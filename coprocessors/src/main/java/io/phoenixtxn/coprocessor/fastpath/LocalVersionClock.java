package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A region server's local version clock (LVC; VLDB'18 sec. 4.3, Lorra draft sec. 5.1): the versions of its fast-path
 * writes, one clock for all its regions. It lives inside the slot of the newest TM timestamp it has seen: a TM slot
 * start S gives it the fast-path offsets S + 50 .. S + 949 (design.md sec. 2), all above S and every checkpoint of S,
 * all below the next slot start and so below every TM timestamp issued after S.
 *
 * <ul>
 *   <li>{@link #bump}: readers raise it to their start, post-commits to their commit timestamp, a region opened here
 *       to a fresh TM timestamp (its bootstrap); a later fast-path write then gets a version above theirs.</li>
 *   <li>{@link #next}: the next fast-path version (fetch-and-increment). When the slot is used up it continues in a
 *       fresh slot of its {@link SlotReserve} (refilled ahead, from half the slot on); without one, no version
 *       (the write aborts and its client retries on the regular path).</li>
 * </ul>
 * Invariants: it never goes backwards (compare-and-set only upwards), and it never leaves a slot the TM issued (it
 * moves only to TM timestamps and to offsets of their slots), so a fresh TM timestamp is above every version any
 * clock produced before it was issued. The clock is in memory only: a region opened on a server (move, split, merge,
 * crash recovery) bootstraps before its first fast-path write ({@link FastPathRegion}).
 */
public final class LocalVersionClock {
    /** No version: the slot is used up and no fresh slot is in reserve. */
    public static final long NONE = -1;
    /** From this offset on the clock asks for a fresh slot ahead of need. */
    static final long REFILL_OFFSET = (TimestampLayout.FAST_PATH_FIRST_OFFSET + TimestampLayout.FAST_PATH_LAST_OFFSET)
            / 2;

    /** Spins of one draw waiting for other threads' slot switches before it gives up (bounded: no TM, no slot). */
    private static final int MAX_SWITCH_WAITS = 10_000;

    private final AtomicLong current = new AtomicLong();
    /** Draws now between finding their slot used up and settling (a switch to a reserved slot, or none). */
    private final AtomicInteger switching = new AtomicInteger();
    private final SlotReserve reserve;

    public LocalVersionClock(TimestampSource source) {
        this.reserve = new SlotReserve(source);
    }

    /** The newest value the clock has reached (0 before anything bumped it). */
    public long current() {
        return current.get();
    }

    /** Raises the clock to at least {@code ts}; never lowers it. */
    public void bump(long ts) {
        long c = current.get();
        while (c < ts && !current.compareAndSet(c, ts)) {
            c = current.get();
        }
    }

    /**
     * The next fast-path version, above every value the clock had; {@link #NONE} when it cannot number one: its slot
     * is used up, no fresh slot is reserved or arrives at once, and no other thread is moving it to one. A thread that
     * finds the slot used up while another is switching to the last reserved slot waits for that switch instead of
     * giving up (with eight writers at a slot's end, giving up there failed several percent of the draws).
     */
    public long next() {
        int waits = 0;
        while (true) {
            long c = current.get();
            if (c <= 0) {
                return NONE; // never bootstrapped: no slot of its own
            }
            long candidate = successorInSlot(c);
            if (candidate != NONE) {
                if (current.compareAndSet(c, candidate)) {
                    if (TimestampLayout.offsetInSlot(candidate) >= REFILL_OFFSET) {
                        reserve.refill(candidate);
                    }
                    return candidate;
                }
                continue;
            }
            switching.incrementAndGet();
            try {
                long taken = reserve.takeAbove(c);
                if (taken < 0) {
                    reserve.refill(c); // a TM in this process answers at once
                    taken = reserve.takeAbove(c);
                }
                if (taken >= 0) {
                    long first = taken + TimestampLayout.FAST_PATH_FIRST_OFFSET;
                    if (current.compareAndSet(c, first)) {
                        reserve.refill(first);
                        return first;
                    }
                    reserve.giveBack(taken); // another thread moved the clock first
                    continue;
                }
            } finally {
                switching.decrementAndGet();
            }
            if (current.get() != c) {
                continue; // another thread moved the clock on (a fresh slot, or a reader's bump): draw from there
            }
            if (switching.get() > 0 && waits++ < MAX_SWITCH_WAITS) {
                Thread.onSpinWait(); // another thread may be switching to the slot it took: wait for its CAS
                continue;
            }
            return NONE;
        }
    }

    /** Asks for fresh slots now, without waiting (a region's bootstrap warms the reserve). */
    public void refill() {
        reserve.refill(current.get());
    }

    /** Fresh slots held in reserve (monitoring, tests). */
    public int reservedSlots() {
        return reserve.size();
    }

    /** The fast-path version after {@code c} in its slot, or {@link #NONE} when the slot has no offset left. */
    static long successorInSlot(long c) {
        long offset = TimestampLayout.offsetInSlot(c);
        if (offset < TimestampLayout.FAST_PATH_FIRST_OFFSET) {
            return TimestampLayout.slotStartOf(c) + TimestampLayout.FAST_PATH_FIRST_OFFSET;
        }
        return offset < TimestampLayout.FAST_PATH_LAST_OFFSET ? c + 1 : NONE;
    }

    @Override
    public String toString() {
        long c = current.get();
        return "LocalVersionClock{" + (c <= 0 ? "not bootstrapped" : TimestampLayout.describe(c)) + ", "
                + reserve.size() + " slots reserved}";
    }
}
