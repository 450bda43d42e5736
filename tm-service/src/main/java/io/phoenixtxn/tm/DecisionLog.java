package io.phoenixtxn.tm;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TM's memory of recent commit decisions, so readers can tell an undecided writer (ignore it) from a decided
 * one whose commit point may still land (wait, then force-abort). A transaction is marked "deciding" before its
 * commit timestamp is drawn; so a reader that finds no mark knows any later commit timestamp of it exceeds every
 * timestamp issued before its question. Bounded: the oldest decisions are forgotten, and the horizon (the
 * highest forgotten id, at least the epoch base) turns questions about them into UNKNOWN.
 *
 * <p>A question about a transaction whose commit is being decided waits for that decision, at most
 * {@code waitMillis}. Deciding is in memory and takes microseconds, except under HA, where a commit may wait for
 * ZooKeeper after it was marked: on the fence lock while a fence is persisted, or on the compare-and-set that
 * extends the timestamp epoch ({@link TimestampOracle}). The wait holds no thread: the answer is a future that the
 * settling commit completes, or that turns UNKNOWN when the bound passes. UNKNOWN is always safe: the reader falls
 * back to Omid LL's wait-then-force-abort.
 */
final class DecisionLog {
    /** Long enough for a ZooKeeper write or two; a question should not wait longer than a client waits for it. */
    static final long DEFAULT_WAIT_MILLIS = 200;

    /** Commit calls in progress per transaction (a resent commit may overlap the first). */
    private final ConcurrentHashMap<Long, Deciding> deciding = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> decisions = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> order = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;
    private final long waitMillis;
    private final LowWaterMark horizon = new LowWaterMark();

    DecisionLog(int capacity, long epochBase, long waitMillis) {
        if (waitMillis <= 0) {
            throw new IllegalArgumentException("the wait for a decision in progress must be positive: " + waitMillis);
        }
        this.capacity = capacity;
        this.waitMillis = waitMillis;
        horizon.raiseTo(epochBase);
    }

    void deciding(long txId) {
        deciding.compute(txId, (id, inProgress) -> inProgress == null ? new Deciding() : inProgress.oneMore());
    }

    /** The decision is recorded before the in-progress mark goes, so a reader never sees neither. */
    void decided(long txId, long commitTs) {
        if (decisions.put(txId, commitTs) == null) {
            order.add(txId);
            if (size.incrementAndGet() > capacity) {
                forgetOldest();
            }
        }
        done(txId);
    }

    void abandoned(long txId) {
        done(txId);
    }

    private void done(long txId) {
        Deciding[] settled = new Deciding[1];
        deciding.computeIfPresent(txId, (id, inProgress) -> {
            if (inProgress.oneLess() > 0) {
                return inProgress;
            }
            settled[0] = inProgress;
            return null;
        });
        if (settled[0] != null) {
            // Outside the map's lock: waiting questions finish their answer on this thread.
            settled[0].settled.complete(null);
        }
    }

    /**
     * What the log says about {@code txId}: at once, or once a commit of it in progress settles, or UNKNOWN after
     * the wait bound. Never fails.
     */
    CompletableFuture<PendingStatus> status(long txId) {
        if (txId <= horizon.get()) {
            return CompletableFuture.completedFuture(PendingStatus.unknown());
        }
        Deciding inProgress = deciding.get(txId);
        if (inProgress == null) {
            return CompletableFuture.completedFuture(recorded(txId));
        }
        // A commit of txId that starts after this point draws its timestamp after the question arrived: if the
        // one in progress settles without a decision, "not decided" is still true of any later commit.
        return inProgress.settled.thenApply(settled -> recorded(txId))
                .completeOnTimeout(PendingStatus.unknown(), waitMillis, TimeUnit.MILLISECONDS);
    }

    /** The answer when no commit of {@code txId} is in progress. */
    private PendingStatus recorded(long txId) {
        Long decision = decisions.get(txId);
        if (decision == null) {
            // Forgetting raises the horizon before it removes, so an absent entry above the horizon never existed.
            return txId <= horizon.get() ? PendingStatus.unknown() : PendingStatus.notDecided();
        }
        return PendingStatus.decided(decision);
    }

    private void forgetOldest() {
        Long oldest = order.poll();
        if (oldest != null) {
            horizon.raiseTo(oldest);
            decisions.remove(oldest);
            size.decrementAndGet();
        }
    }

    /** One transaction's commit calls in progress, and the future their last one completes. */
    private static final class Deciding {
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        /** Only read and written inside the map's compute functions for this key, which serialize them. */
        private int calls = 1;

        Deciding oneMore() {
            calls++;
            return this;
        }

        int oneLess() {
            return --calls;
        }
    }
}
