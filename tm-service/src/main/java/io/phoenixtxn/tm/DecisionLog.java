package io.phoenixtxn.tm;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TM's memory of recent commit decisions, so readers can tell an undecided writer (ignore it) from a decided
 * one whose commit point may still land (wait, then force-abort). A transaction is marked "deciding" before its
 * commit timestamp is drawn; so a reader that finds no mark knows any later commit timestamp of it exceeds every
 * timestamp issued before its question. Bounded: the oldest decisions are forgotten, and the horizon (the
 * highest forgotten id, at least the epoch base) turns questions about them into UNKNOWN.
 */
final class DecisionLog {
    /** Commit calls in progress per transaction (a resent commit may overlap the first). */
    private final ConcurrentHashMap<Long, Integer> deciding = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> decisions = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> order = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;
    private final LowWaterMark horizon = new LowWaterMark();

    DecisionLog(int capacity, long epochBase) {
        this.capacity = capacity;
        horizon.raiseTo(epochBase);
    }

    void deciding(long txId) {
        deciding.merge(txId, 1, Integer::sum);
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
        deciding.computeIfPresent(txId, (k, n) -> n == 1 ? null : n - 1);
    }

    PendingStatus status(long txId) {
        if (txId <= horizon.get()) {
            return PendingStatus.unknown();
        }
        while (deciding.containsKey(txId)) {
            Thread.onSpinWait(); // a decision in progress takes microseconds, all in memory
        }
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
}
