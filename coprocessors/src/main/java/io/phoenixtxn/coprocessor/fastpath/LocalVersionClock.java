package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

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
 * Versions carry wall-clock milliseconds (design.md sec. 2) and TTLs expire by them, but the clock moves only on reads,
 * post-commits, bootstraps and slot exhaustion: left alone it would lag wall time by minutes, and a write could expire
 * on arrival. So it never draws from a slot whose millisecond is more than the maximum slot age behind the wall clock
 * ({@code phoenix.txn.fastpath.slot.max.age.ms}): such a draw switches to a reserved slot young enough, or yields no version;
 * {@link #freshen} (run before the row is locked) moves it to a fresh TM timestamp when its slot has aged.
 *
 * <p>Invariants: it never goes backwards (compare-and-set only upwards), and it never leaves a slot the TM issued (it
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
    private final TimestampSource source;
    /** 0: slots never age. */
    private final long maxSlotAgeMs;
    private final LongSupplier wallMillis;

    /** A clock whose slots never age (tests of the slot mechanics). */
    public LocalVersionClock(TimestampSource source) {
        this(source, 0, System::currentTimeMillis);
    }

    /**
     * @param maxSlotAgeMs how far behind {@code wallMillis} a slot's millisecond may be for a draw from it; 0: no limit
     */
    public LocalVersionClock(TimestampSource source, long maxSlotAgeMs, LongSupplier wallMillis) {
        this.reserve = new SlotReserve(source);
        this.source = source;
        this.maxSlotAgeMs = maxSlotAgeMs;
        this.wallMillis = wallMillis;
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
            long tooOldBelow = tooOldBelow();
            long candidate = successorInSlot(c);
            if (candidate != NONE && candidate < tooOldBelow) {
                candidate = NONE; // the slot aged: a version from it could lag wall time past a TTL
            }
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
                long floor = tooOldBelow == Long.MIN_VALUE ? c : Math.max(c, tooOldBelow - 1); // reserved slots age too
                long taken = reserve.takeAbove(floor);
                if (taken < 0) {
                    reserve.refill(floor); // a TM in this process answers at once
                    taken = reserve.takeAbove(floor);
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

    /**
     * Before a fast-path write locks its row: when the clock's slot has aged past the maximum slot age, asks the TM for a
     * fresh timestamp and waits up to {@code waitMs} for it, then bumps the clock to it (as a bootstrap does: every
     * version drawn from there on is above it and young). Without an answer in time the draw will find no version.
     */
    void freshen(long waitMs) {
        if (maxSlotAgeMs <= 0 || current.get() <= 0 || current.get() >= tooOldBelow()) {
            return;
        }
        CompletableFuture<Long> fresh;
        try {
            fresh = source.fresh();
        } catch (RuntimeException e) {
            return;
        }
        try {
            bump(fresh.get(waitMs, TimeUnit.MILLISECONDS));
            refill();
        } catch (ExecutionException | TimeoutException e) {
            // no TM answered in time: the draw aborts (SLOT_UNAVAILABLE) and the client retries on the regular path
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Versions below this are too old to draw; {@link Long#MIN_VALUE} without a maximum slot age. */
    private long tooOldBelow() {
        if (maxSlotAgeMs <= 0) {
            return Long.MIN_VALUE;
        }
        long millis = wallMillis.getAsLong() - maxSlotAgeMs;
        return millis <= 0 ? Long.MIN_VALUE : TimestampLayout.firstSlotOfMillis(millis);
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
