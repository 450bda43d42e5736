package io.phoenixtxn.tm;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The transactions that may still read: every start timestamp this TM issued (and every fence, whose index
 * population reads at it) until the client says the transaction ended or its lease runs out. Their minimum is the
 * GC horizon: no live transaction reads below it (VLDB'18 leaves readers invisible to the TSO; Apache Omid's
 * low-water mark ignores them, so a long reader can lose the version it needs).
 *
 * <p>A begin may draw its timestamp just before a horizon is computed and register it just after: so a begin first
 * announces a lower bound of what it will draw (the oracle's last timestamp + 1) in a slot of its thread, draws,
 * registers, then withdraws the announcement. The horizon reads the oracle's last timestamp L first, then every
 * announcement, then every stripe. A begin that drew at or below L announced before L was read; the scan sees the
 * announcement, or, if it was withdrawn already, the registration that preceded the withdrawal. Anything drawn later
 * is above L. No allocation per transaction: announcements are an array of longs, stripes are open-addressing tables
 * of longs (key 0 = empty, deleted slots re-packed by backward shift).
 */
final class OpenTransactions {
    private static final int STRIPES = 64;
    private static final long EMPTY = 0;

    /** Draws a timestamp (the oracle). */
    interface TimestampSource {
        long next() throws TmException;
    }

    /** Draws {@code count} timestamps in one step and returns the first (the others follow it, slot by slot). */
    interface BatchSource {
        long next(int count) throws TmException;
    }

    private static final int ANNOUNCE_SLOTS = 1024;
    /** Longs between two threads' announcements: one cache line each, so begins on two cores do not share one. */
    private static final int ANNOUNCE_STRIDE = 8;
    private static final long NONE = Long.MAX_VALUE;

    private final Stripe[] stripes = new Stripe[STRIPES];
    /** Per thread: a lower bound of the timestamp it is drawing for a begin, or NONE. */
    private final java.util.concurrent.atomic.AtomicLongArray announced =
            new java.util.concurrent.atomic.AtomicLongArray(ANNOUNCE_SLOTS * ANNOUNCE_STRIDE);
    private final java.util.concurrent.atomic.AtomicInteger slotsGiven = new java.util.concurrent.atomic.AtomicInteger();
    private final ThreadLocal<Integer> slotOfThread = ThreadLocal.withInitial(() -> {
        int slot = slotsGiven.getAndIncrement();
        return slot < ANNOUNCE_SLOTS ? slot * ANNOUNCE_STRIDE : -1;
    });
    /** Threads beyond the announcement slots take turns under this lock with one shared slot. */
    private final Object overflow = new Object();
    private volatile long overflowAnnounced = NONE;
    private final long leaseNanos;
    private final LongSupplier nanoClock;

    OpenTransactions(long leaseMillis, LongSupplier nanoClock) {
        if (leaseMillis <= 0) {
            throw new IllegalArgumentException("transaction lease must be positive: " + leaseMillis);
        }
        this.leaseNanos = leaseMillis * 1_000_000L;
        this.nanoClock = nanoClock;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
        for (int i = 0; i < ANNOUNCE_SLOTS; i++) {
            announced.set(i * ANNOUNCE_STRIDE, NONE);
        }
    }

    /**
     * Draws a timestamp and registers it as open, atomically with respect to {@link #horizon}.
     *
     * @param lastIssued the oracle's last timestamp, read now: what this draw will exceed
     */
    long issueAndRegister(java.util.function.LongSupplier lastIssued, TimestampSource source) throws TmException {
        int slot = slotOfThread.get();
        if (slot < 0) {
            synchronized (overflow) {
                overflowAnnounced = lastIssued.getAsLong() + 1;
                try {
                    return drawAndRegister(source);
                } finally {
                    overflowAnnounced = NONE;
                }
            }
        }
        announced.set(slot, lastIssued.getAsLong() + 1);
        try {
            return drawAndRegister(source);
        } finally {
            // Release is enough: a horizon that reads the withdrawal also sees the registration made before it.
            announced.setRelease(slot, NONE);
        }
    }

    /**
     * Draws {@code count} timestamps in one step and registers each as open, atomically with respect to
     * {@link #horizon} like {@link #issueAndRegister(java.util.function.LongSupplier, TimestampSource)}; writes them
     * to {@code out[from, from + count)}.
     */
    void issueAndRegister(java.util.function.LongSupplier lastIssued, BatchSource source, int count, long[] out,
                          int from) throws TmException {
        int slot = slotOfThread.get();
        if (slot < 0) {
            synchronized (overflow) {
                overflowAnnounced = lastIssued.getAsLong() + 1;
                try {
                    drawAndRegister(source, count, out, from);
                } finally {
                    overflowAnnounced = NONE;
                }
            }
            return;
        }
        announced.set(slot, lastIssued.getAsLong() + 1);
        try {
            drawAndRegister(source, count, out, from);
        } finally {
            // Release is enough: a horizon that reads the withdrawal also sees the registration made before it.
            announced.setRelease(slot, NONE);
        }
    }

    private void drawAndRegister(BatchSource source, int count, long[] out, int from) throws TmException {
        long ts = source.next(count);
        long expiry = nanoClock.getAsLong() + leaseNanos;
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                ts = io.phoenixtxn.snapshot.TimestampLayout.nextSlotStart(ts);
            }
            Stripe stripe = stripeOf(ts);
            stripe.lock();
            try {
                stripe.put(ts, expiry);
            } finally {
                stripe.unlock();
            }
            out[from + i] = ts;
        }
    }

    private long drawAndRegister(TimestampSource source) throws TmException {
        long ts = source.next();
        Stripe stripe = stripeOf(ts);
        stripe.lock();
        try {
            stripe.put(ts, nanoClock.getAsLong() + leaseNanos);
        } finally {
            stripe.unlock();
        }
        return ts;
    }

    /** Registers a transaction that began elsewhere (a client re-announcing it to a new primary). */
    void adopt(long txId) {
        Stripe stripe = stripeOf(txId);
        stripe.lock();
        try {
            stripe.put(txId, nanoClock.getAsLong() + leaseNanos);
        } finally {
            stripe.unlock();
        }
    }

    /** Renews the lease of an open transaction; false if it is not open (finished, expired, or never known). */
    boolean renew(long txId) {
        Stripe stripe = stripeOf(txId);
        stripe.lock();
        try {
            // An entry whose lease ran out stays expired even if no sweep removed it yet: what it read may be
            // collected already, and a bulk load's hold on its tables lapsed with its lease.
            long now = nanoClock.getAsLong();
            long expiry = stripe.get(txId);
            if (expiry != EMPTY && expiry - now <= 0) {
                stripe.remove(txId);
                return false;
            }
            return stripe.replace(txId, now + leaseNanos);
        } finally {
            stripe.unlock();
        }
    }

    /** True if the transaction is open and its lease has not run out. */
    boolean isOpen(long txId) {
        Stripe stripe = stripeOf(txId);
        stripe.lock();
        try {
            long expiry = stripe.get(txId);
            return expiry != EMPTY && expiry - nanoClock.getAsLong() > 0;
        } finally {
            stripe.unlock();
        }
    }

    void finish(long txId) {
        Stripe stripe = stripeOf(txId);
        stripe.lock();
        try {
            stripe.remove(txId);
        } finally {
            stripe.unlock();
        }
    }

    /**
     * The oldest start any open transaction has, or {@code lastIssued + 1} when none is open; expired transactions
     * are dropped on the way.
     *
     * @param lastIssued the oracle's last timestamp, read before calling (see the class comment)
     */
    long horizon(long lastIssued) {
        long now = nanoClock.getAsLong();
        long min = Math.min(lastIssued + 1, overflowAnnounced);
        for (int i = 0; i < ANNOUNCE_SLOTS; i++) {
            min = Math.min(min, announced.get(i * ANNOUNCE_STRIDE));
        }
        for (Stripe stripe : stripes) {
            stripe.lock();
            try {
                min = Math.min(min, stripe.minOpenDroppingExpired(now));
            } finally {
                stripe.unlock();
            }
        }
        return min;
    }

    /**
     * The {@code limit} oldest open transactions (and fences) whose lease has not run out, oldest first: for operators
     * ({@code bin/phoenix-txn-admin transactions}). Reads each stripe under its lock, like {@link #horizon}; drops
     * nothing.
     */
    long[] oldest(int limit) {
        long now = nanoClock.getAsLong();
        java.util.stream.LongStream.Builder all = java.util.stream.LongStream.builder();
        for (Stripe stripe : stripes) {
            stripe.lock();
            try {
                stripe.collectOpen(now, all);
            } finally {
                stripe.unlock();
            }
        }
        return all.build().sorted().limit(Math.max(0, limit)).toArray();
    }

    int size() {
        int n = 0;
        for (Stripe stripe : stripes) {
            stripe.lock();
            try {
                n += stripe.size;
            } finally {
                stripe.unlock();
            }
        }
        return n;
    }

    private Stripe stripeOf(long txId) {
        return stripes[(int) (mix(txId) >>> 58)];
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        return z ^ (z >>> 33);
    }

    /** One open-addressing table: ids and lease expiries (monotonic nanos). Guarded by its own lock. */
    private static final class Stripe extends StripeLock {
        private long[] ids = new long[64];
        private long[] expiries = new long[64];
        private int size;

        long get(long id) {
            int slot = find(id);
            return slot < 0 ? EMPTY : expiries[slot];
        }

        void put(long id, long expiry) {
            if ((size + 1) * 2 > ids.length) {
                resize(ids.length * 2);
            }
            int mask = ids.length - 1;
            int slot = (int) (mix(id) & mask);
            while (ids[slot] != EMPTY && ids[slot] != id) {
                slot = (slot + 1) & mask;
            }
            if (ids[slot] == EMPTY) {
                size++;
            }
            ids[slot] = id;
            expiries[slot] = expiry == EMPTY ? 1 : expiry;
        }

        boolean replace(long id, long expiry) {
            int slot = find(id);
            if (slot < 0) {
                return false;
            }
            expiries[slot] = expiry == EMPTY ? 1 : expiry;
            return true;
        }

        void remove(long id) {
            int slot = find(id);
            if (slot >= 0) {
                deleteAt(slot);
            }
        }

        void collectOpen(long now, java.util.function.LongConsumer out) {
            for (int slot = 0; slot < ids.length; slot++) {
                if (ids[slot] != EMPTY && expiries[slot] - now > 0) {
                    out.accept(ids[slot]);
                }
            }
        }

        long minOpenDroppingExpired(long now) {
            long min = Long.MAX_VALUE;
            for (int slot = 0; slot < ids.length; slot++) {
                if (ids[slot] == EMPTY) {
                    continue;
                }
                if (expiries[slot] - now <= 0) {
                    deleteAt(slot);
                    slot--; // backward shift may have moved another entry into this slot
                    continue;
                }
                min = Math.min(min, ids[slot]);
            }
            return min;
        }

        private int find(long id) {
            int mask = ids.length - 1;
            int slot = (int) (mix(id) & mask);
            while (ids[slot] != EMPTY) {
                if (ids[slot] == id) {
                    return slot;
                }
                slot = (slot + 1) & mask;
            }
            return -1;
        }

        /** Linear-probing deletion by backward shift: no tombstones, so lookups stay short. */
        private void deleteAt(int slot) {
            int mask = ids.length - 1;
            int hole = slot;
            int next = (hole + 1) & mask;
            while (ids[next] != EMPTY) {
                int home = (int) (mix(ids[next]) & mask);
                // Move the entry back if its home is not cyclically within (hole, next].
                boolean homeInRange = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
                if (!homeInRange) {
                    ids[hole] = ids[next];
                    expiries[hole] = expiries[next];
                    hole = next;
                }
                next = (next + 1) & mask;
            }
            ids[hole] = EMPTY;
            expiries[hole] = EMPTY;
            size--;
        }

        private void resize(int capacity) {
            long[] oldIds = ids;
            long[] oldExpiries = expiries;
            ids = new long[capacity];
            expiries = new long[capacity];
            size = 0;
            for (int i = 0; i < oldIds.length; i++) {
                if (oldIds[i] != EMPTY) {
                    put(oldIds[i], oldExpiries[i]);
                }
            }
            Arrays.fill(oldIds, EMPTY);
        }
    }
}
