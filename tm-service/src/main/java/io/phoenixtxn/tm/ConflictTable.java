package io.phoenixtxn.tm;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * In-memory write-write conflict detection (FAST'17 Alg. 2): a set-associative table of (row hash, last commit
 * timestamp) with one spin lock per bucket. A commit locks the buckets of its write set in index order (no
 * deadlock), checks every row, then records its commit timestamp for every row.
 *
 * <p>Rules, in this order, for a transaction with start timestamp {@code txId}:
 * <ol>
 *   <li>a row present with a commit timestamp above {@code txId}: conflict;</li>
 *   <li>a bucket without enough slots to take the transaction's new rows without evicting an entry newer than
 *       {@code txId}: abort (the table could not remember this commit without forgetting history a running
 *       transaction may need), never a silent miss;</li>
 *   <li>otherwise commit; a new row takes an empty slot or evicts the oldest one, and the evicted commit
 *       timestamp raises the {@link LowWaterMark}.</li>
 * </ol>
 * Memory is fixed at construction: 16 bytes per entry plus one int per bucket.
 */
public final class ConflictTable {
    /** Outcome of {@link #checkAndRecord}. */
    public enum Result { COMMITTED, CONFLICT, NO_ROOM }

    private static final long EMPTY = 0L;

    private final int associativity;
    private final int buckets;
    private final long[] keys;
    private final long[] commitTimestamps;
    private final AtomicIntegerArray locks;
    private final LowWaterMark lowWaterMark;

    public ConflictTable(int entries, int associativity, LowWaterMark lowWaterMark) {
        if (associativity < 1 || entries < associativity) {
            throw new IllegalArgumentException("Conflict table needs entries >= associativity >= 1, got entries="
                    + entries + ", associativity=" + associativity);
        }
        this.associativity = associativity;
        this.buckets = entries / associativity;
        this.keys = new long[buckets * associativity];
        this.commitTimestamps = new long[buckets * associativity];
        this.locks = new AtomicIntegerArray(buckets);
        this.lowWaterMark = lowWaterMark;
    }

    public int capacity() {
        return keys.length;
    }

    /**
     * Checks a write set against the table and records it with {@code commitTs} if it does not conflict.
     * {@code rowHashes} may contain duplicates and is not modified. {@code txId} is where the conflict window
     * starts: the transaction's start, or an earlier one for a replay (see {@link TransactionManager#commit}).
     */
    public Result checkAndRecord(long txId, long[] rowHashes, long commitTs) {
        if (rowHashes.length == 0) {
            return Result.COMMITTED;
        }
        long[] rows = distinctKeys(rowHashes);
        int[] bucketOfRow = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            bucketOfRow[i] = bucketOf(rows[i]);
        }
        int[] lockedBuckets = Arrays.stream(bucketOfRow).distinct().sorted().toArray();
        for (int b : lockedBuckets) {
            lock(b);
        }
        try {
            Result verdict = check(txId, rows, bucketOfRow, lockedBuckets);
            if (verdict != Result.COMMITTED) {
                return verdict;
            }
            // Rows already present first, so that a new row can never evict one of this write set's own rows.
            boolean[] present = new boolean[rows.length];
            for (int i = 0; i < rows.length; i++) {
                int slot = find(bucketOfRow[i], rows[i]);
                if (slot >= 0) {
                    commitTimestamps[slot] = commitTs;
                    present[i] = true;
                }
            }
            for (int i = 0; i < rows.length; i++) {
                if (!present[i]) {
                    record(bucketOfRow[i], rows[i], commitTs);
                }
            }
            return Result.COMMITTED;
        } finally {
            for (int b : lockedBuckets) {
                unlock(b);
            }
        }
    }

    /**
     * True if a row of the write set has a commit above {@code since}; records nothing. Used to name the reason of
     * an abort decided for another cause (a fence), so the client learns that retrying these writes is futile.
     */
    public boolean conflicts(long since, long[] rowHashes) {
        if (rowHashes.length == 0) {
            return false;
        }
        long[] rows = distinctKeys(rowHashes);
        int[] bucketOfRow = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            bucketOfRow[i] = bucketOf(rows[i]);
        }
        int[] lockedBuckets = Arrays.stream(bucketOfRow).distinct().sorted().toArray();
        for (int b : lockedBuckets) {
            lock(b);
        }
        try {
            for (int i = 0; i < rows.length; i++) {
                int slot = find(bucketOfRow[i], rows[i]);
                if (slot >= 0 && commitTimestamps[slot] > since) {
                    return true;
                }
            }
            return false;
        } finally {
            for (int b : lockedBuckets) {
                unlock(b);
            }
        }
    }

    private Result check(long txId, long[] rows, int[] bucketOfRow, int[] lockedBuckets) {
        // Per locked bucket: how many of our rows are new to it, and how many slots could take them.
        int[] newRows = new int[lockedBuckets.length];
        for (int i = 0; i < rows.length; i++) {
            int slot = find(bucketOfRow[i], rows[i]);
            if (slot >= 0) {
                if (commitTimestamps[slot] > txId) {
                    return Result.CONFLICT;
                }
            } else {
                newRows[Arrays.binarySearch(lockedBuckets, bucketOfRow[i])]++;
            }
        }
        for (int j = 0; j < lockedBuckets.length; j++) {
            if (newRows[j] > 0 && reusableSlots(lockedBuckets[j], txId, rows, newRows[j]) < newRows[j]) {
                return Result.NO_ROOM;
            }
        }
        return Result.COMMITTED;
    }

    /** Counts slots a new row may take, stopping as soon as {@code needed} are found (the hot path's cost). */
    private int reusableSlots(int bucket, long txId, long[] sortedOwnRows, int needed) {
        int count = 0;
        int base = bucket * associativity;
        for (int s = base; s < base + associativity && count < needed; s++) {
            if (keys[s] == EMPTY) {
                return count + (base + associativity - s); // empty slots only follow occupied ones
            }
            if (commitTimestamps[s] < txId && Arrays.binarySearch(sortedOwnRows, keys[s]) < 0) {
                count++;
            }
        }
        return count;
    }

    private void record(int bucket, long key, long commitTs) {
        int base = bucket * associativity;
        int victim = base;
        for (int s = base; s < base + associativity; s++) {
            if (keys[s] == key) {
                commitTimestamps[s] = commitTs;
                return;
            }
            if (keys[s] == EMPTY) {
                victim = s;
                break;
            }
            if (commitTimestamps[s] < commitTimestamps[victim]) {
                victim = s;
            }
        }
        if (keys[victim] != EMPTY) {
            lowWaterMark.raiseTo(commitTimestamps[victim]);
        }
        keys[victim] = key;
        commitTimestamps[victim] = commitTs;
    }

    private int find(int bucket, long key) {
        int base = bucket * associativity;
        for (int s = base; s < base + associativity; s++) {
            if (keys[s] == key) {
                return s;
            }
            if (keys[s] == EMPTY) {
                return -1;
            }
        }
        return -1;
    }

    private int bucketOf(long key) {
        return (int) Long.remainderUnsigned(mix(key), buckets);
    }

    /** Hashes arrive already hashed, but spread them once more so clustered ids do not share buckets. */
    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    private static long[] distinctKeys(long[] rowHashes) {
        long[] copy = rowHashes.clone();
        for (int i = 0; i < copy.length; i++) {
            if (copy[i] == EMPTY) {
                copy[i] = 1L; // 0 marks an empty slot; fold it onto 1 (a harmless extra collision)
            }
        }
        Arrays.sort(copy);
        int n = 0;
        for (int i = 0; i < copy.length; i++) {
            if (i == 0 || copy[i] != copy[i - 1]) {
                copy[n++] = copy[i];
            }
        }
        return n == copy.length ? copy : Arrays.copyOf(copy, n);
    }

    /**
     * Spins briefly, then yields: a holder descheduled mid-commit (more client threads than cores, the embedded TM
     * runs on its callers' threads) must not make every waiter burn whole scheduler slices.
     */
    private void lock(int bucket) {
        int spins = 0;
        while (!locks.compareAndSet(bucket, 0, 1)) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    private void unlock(int bucket) {
        locks.set(bucket, 0);
    }
}
