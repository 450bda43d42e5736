package io.phoenixtxn.tm;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.concurrent.atomic.AtomicLong;

/**
 * World-clock timestamp oracle (ms x 1e6 layout, see {@link TimestampLayout}) with epochs reserved in
 * {@link TimestampStorage} by compare-and-set (VLDB'18 Alg. 2, checkRenew). Timestamps are strictly increasing
 * slot starts; the oracle follows the wall clock when it can and runs ahead of it when it must (more than one slot
 * per 950 ns, or a wall clock that stepped back), so it is monotonic across restarts and failovers: the first
 * timestamp of a new primary is above every timestamp the storage ever allowed an older primary to issue.
 *
 * <p>Thread safety: every method may be called from any thread (TM workers issue timestamps, HA housekeeping
 * extends the reservation ahead of them). Who writes what:
 * <ul>
 *   <li>{@code last}: advanced only by compare-and-set in {@link #next()}, lock-free, so it strictly increases and
 *       every timestamp is issued once; set by {@link #initialize()}, which runs before any {@code next()}.</li>
 *   <li>{@code reservedMax}: written only under this object's monitor ({@code initialize},
 *       {@code extendReservation}), and only after the storage's compare-and-set made the new bound durable; it
 *       only grows. {@code next()} reads it without the lock: a timestamp is issued only if it is at or below a
 *       bound that is already durable, which is what makes a later primary start above it.</li>
 *   <li>{@code epochBase}: written once, by {@code initialize()}.</li>
 * </ul>
 * The monitor is held across the storage round trip (a ZooKeeper compare-and-set under HA), so callers that need a
 * new epoch queue behind it while callers inside the current reservation do not wait. A lost compare-and-set throws
 * {@link LostPrimacyException} and leaves the reservation as it was: this oracle issues nothing above it, ever.
 */
public final class TimestampOracle {
    private final Clock clock;
    private final TimestampStorage storage;
    private final long reservationUnits;
    private final AtomicLong last = new AtomicLong();
    /** Highest timestamp this oracle may issue under its current reservation. */
    private volatile long reservedMax = -1;
    private volatile long epochBase = -1;

    public TimestampOracle(Clock clock, TimestampStorage storage, long reservationMillis) {
        if (reservationMillis <= 0) {
            throw new IllegalArgumentException("reservation must be positive: " + reservationMillis);
        }
        this.clock = clock;
        this.storage = storage;
        this.reservationUnits = reservationMillis * TimestampLayout.UNITS_PER_MILLI;
    }

    /**
     * Makes this oracle issue timestamps above everything any previous holder of the storage reserved. Called once
     * when the TM becomes primary. Returns the epoch base: every earlier timestamp belongs to an older epoch.
     */
    public synchronized long initialize() throws TmException {
        long previousMax = storage.getMaxTimestamp();
        last.set(previousMax);
        reservedMax = previousMax;
        epochBase = previousMax;
        extendReservation(TimestampLayout.nextSlotStart(previousMax), 0);
        return previousMax;
    }

    /** Timestamps at or below this were (or may have been) issued by an earlier epoch. */
    public long epochBase() {
        return epochBase;
    }

    public long reservedMax() {
        return reservedMax;
    }

    /** The last timestamp issued. */
    public long last() {
        return last.get();
    }

    public long next() throws TmException {
        if (epochBase < 0) {
            throw new IllegalStateException("TimestampOracle.initialize() was not called");
        }
        while (true) {
            long previous = last.get();
            long candidate = Math.max(TimestampLayout.firstSlotOfMillis(clock.millis()),
                    TimestampLayout.nextSlotStart(previous));
            if (candidate > reservedMax) {
                extendReservation(candidate, 0);
                continue;
            }
            if (last.compareAndSet(previous, candidate)) {
                return candidate;
            }
        }
    }

    /**
     * True if {@code count} more timestamps, and a millisecond's worth beyond them, fit in the current reservation
     * from where the oracle or the wall clock (whichever is ahead) stands: drawing them will not wait for storage.
     */
    public boolean hasRoomFor(int count) {
        long from = Math.max(last.get(), TimestampLayout.firstSlotOfMillis(clock.millis()));
        long needed = (2 + count / TimestampLayout.SLOTS_PER_MILLI) * TimestampLayout.UNITS_PER_MILLI;
        return reservedMax - from > needed;
    }

    /**
     * {@code count} timestamps in one step (one compare-and-set): the first is returned, the others are the slot
     * starts that follow it ({@link TimestampLayout#nextSlotStart}). The TM server gives the BEGIN requests of one
     * batch their start timestamps this way.
     */
    public long next(int count) throws TmException {
        if (count == 1) {
            return next();
        }
        if (count < 1) {
            throw new IllegalArgumentException("timestamps wanted: " + count);
        }
        if (epochBase < 0) {
            throw new IllegalStateException("TimestampOracle.initialize() was not called");
        }
        while (true) {
            long previous = last.get();
            long first = Math.max(TimestampLayout.firstSlotOfMillis(clock.millis()),
                    TimestampLayout.nextSlotStart(previous));
            long lastOfBatch = first;
            for (int i = 1; i < count; i++) {
                lastOfBatch = TimestampLayout.nextSlotStart(lastOfBatch);
            }
            if (lastOfBatch > reservedMax) {
                extendReservation(lastOfBatch, 0);
                continue;
            }
            if (last.compareAndSet(previous, lastOfBatch)) {
                return first;
            }
        }
    }

    /**
     * Extends the reservation ahead of time (the HA lease renewal calls it) so that {@link #next()} rarely pays for
     * a storage round trip.
     */
    public void extendIfBelow(long headroomUnits) throws TmException {
        if (reservedMax - last.get() < headroomUnits) {
            extendReservation(last.get() + 1, headroomUnits);
        }
    }

    /**
     * Makes {@code needed} issuable and leaves at least {@code minHeadroom} units above the last timestamp; a new
     * reservation covers one reservation period (or the headroom, if larger) past the wall clock.
     */
    private synchronized void extendReservation(long needed, long minHeadroom) throws TmException {
        long current = reservedMax;
        if (needed <= current && current - last.get() >= minHeadroom) {
            return;
        }
        long base = Math.max(needed, TimestampLayout.firstSlotOfMillis(clock.millis()));
        long newMax = base + Math.max(reservationUnits, minHeadroom);
        if (!storage.compareAndSet(current, newMax)) {
            throw new LostPrimacyException("Another transaction manager reserved timestamps after " + current
                    + "; this one is no longer primary and stops issuing timestamps");
        }
        reservedMax = newMax;
    }
}
