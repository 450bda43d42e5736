package io.phoenixtxn.tm;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The TM's memory of recent commit decisions, so readers can tell an undecided writer (ignore it) from a decided
 * one whose commit point may still land (wait, then force-abort). A transaction is marked "deciding" before its
 * commit timestamp is drawn; so a reader that finds no mark knows any later commit timestamp of it exceeds every
 * timestamp issued before its question. Bounded: the oldest decisions are forgotten, and the horizon (the
 * highest forgotten id of the transaction's stripe, at least the epoch base) turns questions about them into
 * UNKNOWN.
 *
 * <p>A question about a transaction whose commit is being decided waits for that decision, at most
 * {@code waitMillis}. Deciding is in memory and takes microseconds, except under HA, where a commit may wait for
 * ZooKeeper after it was marked: on the fence lock while a fence is persisted, or on the compare-and-set that
 * extends the timestamp epoch ({@link TimestampOracle}). The wait holds no thread: the answer is a future that the
 * settling commit completes, or that turns UNKNOWN when the bound passes. UNKNOWN is always safe: the reader falls
 * back to Omid LL's wait-then-force-abort.
 *
 * <p>On the commit path (mark, then decide or abandon) nothing is allocated or boxed: the log is striped by
 * transaction id; each stripe keeps the few commit calls in progress in a small array, and its retained decisions
 * in an open-addressing table of primitive (id, commit timestamp) pairs with a ring of their ids in the order they
 * were decided, all guarded by the stripe's lock ({@link StripeLock}). Only a question that must wait allocates (its
 * future), and only then does the settling commit look for it.
 */
final class DecisionLog {
    /** Long enough for a ZooKeeper write or two; a question should not wait longer than a client waits for it. */
    static final long DEFAULT_WAIT_MILLIS = 200;
    private static final int STRIPES = 64;
    private static final CompletableFuture<PendingStatus> UNKNOWN =
            CompletableFuture.completedFuture(PendingStatus.unknown());

    private final Stripe[] stripes = new Stripe[STRIPES];
    private final long waitMillis;
    /** Transactions at or below it belong to an earlier epoch: this TM never knew their decisions. */
    private final long epochBase;
    /**
     * Per transaction with a question waiting: the future its commit in progress completes when it settles. Added
     * and removed only under the transaction's stripe lock, so each future belongs to one period of commits in
     * progress; completed outside it.
     */
    private final ConcurrentHashMap<Long, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

    DecisionLog(int capacity, long epochBase, long waitMillis) {
        if (waitMillis <= 0) {
            throw new IllegalArgumentException("the wait for a decision in progress must be positive: " + waitMillis);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("the decision log must retain at least one decision: " + capacity);
        }
        this.waitMillis = waitMillis;
        int perStripe = (capacity + STRIPES - 1) / STRIPES;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(perStripe);
        }
        this.epochBase = epochBase;
    }

    /** A commit call of {@code txId} starts (a resent commit may overlap the first). */
    void deciding(long txId) {
        Stripe stripe = stripeOf(txId);
        stripe.lock();
        try {
            stripe.callStarts(txId);
        } finally {
            stripe.unlock();
        }
    }

    /** The decision is recorded before the in-progress mark goes, so a reader never sees neither. */
    void decided(long txId, long commitTs) {
        Stripe stripe = stripeOf(txId);
        CompletableFuture<Void> settled;
        stripe.lock();
        try {
            stripe.record(txId, commitTs);
            settled = stripe.callEnds(txId) ? waiting.remove(txId) : null;
        } finally {
            stripe.unlock();
        }
        if (settled != null) {
            // Outside the stripe's lock: waiting questions finish their answer on this thread.
            settled.complete(null);
        }
    }

    void abandoned(long txId) {
        Stripe stripe = stripeOf(txId);
        CompletableFuture<Void> settled;
        stripe.lock();
        try {
            settled = stripe.callEnds(txId) ? waiting.remove(txId) : null;
        } finally {
            stripe.unlock();
        }
        if (settled != null) {
            settled.complete(null);
        }
    }

    /**
     * What the log says about {@code txId}: at once, or once a commit of it in progress settles, or UNKNOWN after
     * the wait bound. Never fails.
     */
    CompletableFuture<PendingStatus> status(long txId) {
        if (txId <= epochBase) {
            return UNKNOWN;
        }
        Stripe stripe = stripeOf(txId);
        CompletableFuture<Void> settled;
        stripe.lock();
        try {
            if (!stripe.inProgress(txId, true)) {
                return CompletableFuture.completedFuture(recorded(stripe, txId));
            }
            settled = waiting.computeIfAbsent(txId, id -> new CompletableFuture<>());
        } finally {
            stripe.unlock();
        }
        // A commit of txId that starts after this point draws its timestamp after the question arrived: if the
        // one in progress settles without a decision, "not decided" is still true of any later commit.
        return settled.thenApply(done -> recorded(txId))
                .completeOnTimeout(PendingStatus.unknown(), waitMillis, TimeUnit.MILLISECONDS);
    }

    /** Decisions retained now (monitoring, tests). */
    int size() {
        int n = 0;
        for (Stripe stripe : stripes) {
            stripe.lock();
            try {
                n += stripe.decided;
            } finally {
                stripe.unlock();
            }
        }
        return n;
    }

    /** The answer once no commit of {@code txId} that started before the question is in progress. */
    private PendingStatus recorded(long txId) {
        Stripe stripe = stripeOf(txId);
        stripe.lock();
        try {
            return recorded(stripe, txId);
        } finally {
            stripe.unlock();
        }
    }

    private PendingStatus recorded(Stripe stripe, long txId) {
        long commitTs = stripe.commitTs(txId);
        if (commitTs == 0) {
            // Forgetting raises the stripe's horizon before it removes, and a transaction always maps to the same
            // stripe, so an absent entry above the horizon never existed.
            return txId <= stripe.forgottenUpTo || txId <= epochBase ? PendingStatus.unknown()
                    : PendingStatus.notDecided();
        }
        return PendingStatus.decided(commitTs);
    }

    private Stripe stripeOf(long txId) {
        return stripes[(int) (ConflictKeys.mix(txId) >>> 58)];
    }

    /**
     * One stripe, guarded by its own lock: the commit calls in progress (a few: one per thread deciding in this
     * stripe; a small array scanned linearly, so it stays in cache), and the retained decisions, an open-addressing
     * table of (id, commit timestamp) pairs side by side in one array (one cache line per probe; linear probing,
     * id 0 = empty, deletion by backward shift) with a ring of their ids, oldest first.
     */
    private static final class Stripe extends StripeLock {
        static final int WAITED_FOR = 1 << 31;
        private static final int CALLS = ~WAITED_FOR;

        private long[] deciding = new long[8];
        /** Calls in progress per {@link #deciding} entry, and the {@link #WAITED_FOR} bit. */
        private int[] calls = new int[8];
        private int decidingCount;

        private final long[] pairs;
        private final int mask;
        private final long[] ring;
        private int oldest;
        int decided;
        /** The highest id this stripe forgot the decision of. */
        long forgottenUpTo;

        Stripe(int retained) {
            ring = new long[retained];
            int slots = Integer.highestOneBit(Math.max(4, retained) * 2 - 1) << 1; // load factor <= 1/2
            pairs = new long[2 * slots];
            mask = slots - 1;
        }

        void callStarts(long txId) {
            int at = indexDeciding(txId);
            if (at < 0) {
                if (decidingCount == deciding.length) {
                    deciding = java.util.Arrays.copyOf(deciding, decidingCount * 2);
                    calls = java.util.Arrays.copyOf(calls, decidingCount * 2);
                }
                at = decidingCount++;
                deciding[at] = txId;
                calls[at] = 0;
            }
            calls[at]++;
        }

        /** True if a commit of {@code txId} is in progress (and, when {@code waitFor}, marks a waiting question). */
        boolean inProgress(long txId, boolean waitFor) {
            int at = indexDeciding(txId);
            if (at >= 0 && waitFor) {
                calls[at] |= WAITED_FOR;
            }
            return at >= 0;
        }

        /** Ends one call; true if it was the last one in progress and a question waits for it. */
        boolean callEnds(long txId) {
            int at = indexDeciding(txId);
            if (at < 0) {
                return false;
            }
            int state = calls[at];
            int remaining = (state & CALLS) - 1;
            if (remaining > 0) {
                calls[at] = remaining | (state & WAITED_FOR);
                return false;
            }
            decidingCount--;
            deciding[at] = deciding[decidingCount];
            calls[at] = calls[decidingCount];
            return (state & WAITED_FOR) != 0;
        }

        private int indexDeciding(long txId) {
            for (int i = 0; i < decidingCount; i++) {
                if (deciding[i] == txId) {
                    return i;
                }
            }
            return -1;
        }

        /** Records a decision; forgets the oldest one if the ring is full (raising the horizon first). */
        void record(long txId, long commitTs) {
            int slot = home(txId);
            while (true) {
                long id = pairs[2 * slot];
                if (id == txId) {
                    pairs[2 * slot + 1] = commitTs; // decided again (a resent commit): the latest answer
                    return;
                }
                if (id == 0) {
                    break;
                }
                slot = (slot + 1) & mask;
            }
            if (decided == ring.length) {
                long forgotten = ring[oldest];
                forgottenUpTo = Math.max(forgottenUpTo, forgotten);
                delete(forgotten);
                oldest = oldest + 1 == ring.length ? 0 : oldest + 1;
                decided--;
                slot = home(txId); // the deletion may have shifted the chain
                while (pairs[2 * slot] != 0) {
                    slot = (slot + 1) & mask;
                }
            }
            pairs[2 * slot] = txId;
            pairs[2 * slot + 1] = commitTs;
            int tail = oldest + decided;
            ring[tail >= ring.length ? tail - ring.length : tail] = txId;
            decided++;
        }

        /** The recorded commit timestamp of {@code txId}, or 0. */
        long commitTs(long txId) {
            int slot = home(txId);
            while (true) {
                long id = pairs[2 * slot];
                if (id == txId) {
                    return pairs[2 * slot + 1];
                }
                if (id == 0) {
                    return 0;
                }
                slot = (slot + 1) & mask;
            }
        }

        private int home(long id) {
            return (int) (ConflictKeys.mix(id) & mask);
        }

        /** Linear-probing deletion by backward shift: no tombstones, so lookups stay short. */
        private void delete(long txId) {
            int hole = home(txId);
            while (pairs[2 * hole] != txId) {
                if (pairs[2 * hole] == 0) {
                    return;
                }
                hole = (hole + 1) & mask;
            }
            int next = (hole + 1) & mask;
            while (pairs[2 * next] != 0) {
                int h = home(pairs[2 * next]);
                boolean homeInRange = hole <= next ? (h > hole && h <= next) : (h > hole || h <= next);
                if (!homeInRange) {
                    pairs[2 * hole] = pairs[2 * next];
                    pairs[2 * hole + 1] = pairs[2 * next + 1];
                    hole = next;
                }
                next = (next + 1) & mask;
            }
            pairs[2 * hole] = 0;
            pairs[2 * hole + 1] = 0;
        }
    }
}
