package io.phoenixtxn.tm;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * In-memory write-write conflict detection (FAST'17 sec. 4, Alg. 2): a set-associative table of (row key, last
 * commit timestamp) pairs with one spin lock per bucket. A commit locks the buckets of its write set in ascending
 * order, all or nothing (one that finds a lock busy releases the others before it waits, see {@link #lockAll}), checks
 * every row, then records its commit timestamp for every row.
 *
 * <p>Rules, in this order, for a transaction whose conflict window starts at {@code since}:
 * <ol>
 *   <li>a row present with a commit timestamp above {@code since}: conflict;</li>
 *   <li>a bucket without enough ways to take the transaction's new rows, counting only empty ways and ways
 *       committed before {@code since} that are not the transaction's own rows: abort (the table could not
 *       remember this commit without forgetting history a running transaction may need), never a silent miss;</li>
 *   <li>otherwise commit; a new row takes an empty way or evicts the way with the oldest commit timestamp, and the
 *       evicted timestamp raises the {@link LowWaterMark}.</li>
 * </ol>
 * Why an eviction can never let a transaction that needed the evicted entry commit: the victim is always the
 * bucket's oldest way, and every later entry is committed after the start of its writer, which found a way older
 * than its start; so once a timestamp {@code v} is evicted, every entry the bucket ever holds again is above
 * {@code v}. A transaction that started before {@code v} and writes the evicted row finds no way older than its
 * start in that bucket, and aborts by rule 2.
 *
 * <p>Layout, for speed without allocation: one flat {@code long[]}, each bucket a contiguous run of
 * (key, commit timestamp) pairs, starting on a cache-line boundary when the JVM aligns the array like G1 aligns a
 * humongous object, so a 16-way bucket is four cache lines. Keys arrive prepared ({@link ConflictKeys}: mixed,
 * sorted, distinct); the bucket index is monotone in the key, so the rows of one bucket are adjacent and the
 * buckets come in lock order. Before taking the first lock, a commit touches every bucket it will scan, so the
 * cache misses of all its rows overlap instead of queueing one behind another; the scan that checks a bucket also
 * picks the way its new row takes. Memory is fixed at construction: 16 bytes per entry plus at most 4096 locks.
 *
 * <p>Monitoring: entries filled and entries evicted are counted per commit (one {@link LongAdder} add each, only
 * when non-zero), so occupancy and eviction rate cost no scan of the table.
 */
public final class ConflictTable {
    /** Outcome of {@link #checkAndRecord}. */
    public enum Result { COMMITTED, CONFLICT, NO_ROOM }

    private static final long EMPTY = 0L;
    /** In {@code keys.ways}: -1 for a new row whose way is still to be chosen, {@code NEW_AT - w} for one that takes way w. */
    private static final int NEW_AT = -2;
    /** Longs per cache line. */
    private static final int LINE = 8;
    /**
     * Index of the first bucket: a long[]'s data starts 16 bytes into the object, so with a line-aligned object (a
     * humongous one under G1) element 6 starts a cache line. Only a speed matter: any other alignment is correct.
     */
    private static final int ALIGNMENT_OFFSET = 6;
    private static final int SPINS_BEFORE_YIELD = 100;
    /** A commit that found a lock busy, holding none, yields this many times, then sleeps between looks. */
    private static final int YIELDS_BEFORE_SLEEP = 10;
    private static final long SLEEP_NANOS = 20_000L;
    /**
     * After this many all-or-nothing attempts a commit takes its locks one by one in order, waiting while it holds
     * the ones before: a large write set then gets through however busy the table is.
     */
    static final int DEFAULT_ATTEMPTS_BEFORE_QUEUEING = 1000;
    /**
     * At most this many bucket locks (16 KiB: they stay in the first-level cache, where a lock per bucket would
     * cost a cache miss of its own). A lock covers a range of adjacent buckets, so locks are still taken in
     * ascending order; two commits rarely share one (a few of 4096).
     */
    private static final int MAX_LOCKS = 4096;
    /** Per-thread prepared keys for callers that pass raw row hashes. */
    private static final ThreadLocal<ConflictKeys> SCRATCH = ThreadLocal.withInitial(ConflictKeys::new);

    private final int ways;
    private final int buckets;
    /** Longs per bucket: two per way. */
    private final int stride;
    private final long[] table;
    /** One lock per range of adjacent buckets: a small array that stays in cache, still in ascending order. */
    private final AtomicIntegerArray locks;
    private final int lockShift;
    private final LowWaterMark lowWaterMark;
    private final LongAdder filled = new LongAdder();
    private final LongAdder evicted = new LongAdder();
    private final LongAdder lockWaits = new LongAdder();
    private final int attemptsBeforeQueueing;

    public ConflictTable(int entries, int associativity, LowWaterMark lowWaterMark) {
        this(entries, associativity, lowWaterMark, DEFAULT_ATTEMPTS_BEFORE_QUEUEING);
    }

    /** {@code attemptsBeforeQueueing}: see {@link #DEFAULT_ATTEMPTS_BEFORE_QUEUEING}; tests pin it. */
    ConflictTable(int entries, int associativity, LowWaterMark lowWaterMark, int attemptsBeforeQueueing) {
        if (associativity < 1 || entries < associativity) {
            throw new IllegalArgumentException("Conflict table needs entries >= associativity >= 1, got entries="
                    + entries + ", associativity=" + associativity);
        }
        this.ways = associativity;
        this.buckets = entries / associativity;
        this.stride = 2 * associativity;
        this.table = new long[ALIGNMENT_OFFSET + buckets * stride];
        int shift = 0;
        while ((buckets - 1) >>> shift >= MAX_LOCKS) {
            shift++;
        }
        this.lockShift = shift;
        this.locks = new AtomicIntegerArray(((buckets - 1) >>> shift) + 1);
        this.lowWaterMark = lowWaterMark;
        this.attemptsBeforeQueueing = attemptsBeforeQueueing;
    }

    public int capacity() {
        return buckets * ways;
    }

    /** Entries in use: an entry once filled is only ever overwritten. */
    public long occupied() {
        return filled.sum();
    }

    /** Times a commit found a lock busy, released the ones it held and waited (contention, for tests and metrics). */
    long lockWaits() {
        return lockWaits.sum();
    }

    /**
     * For tests: takes the lock of {@code bucket} as a commit descheduled while holding it would, until
     * {@link #releaseBucket}.
     */
    void holdBucket(int bucket) {
        lock(bucket >>> lockShift);
    }

    void releaseBucket(int bucket) {
        locks.setRelease(bucket >>> lockShift, 0);
    }

    boolean bucketFree(int bucket) {
        return locks.get(bucket >>> lockShift) == 0;
    }

    /** Entries overwritten by a new row (the low-water mark rises to at least each one's commit timestamp). */
    public long evictions() {
        return evicted.sum();
    }

    /**
     * Checks a write set against the table and records it with {@code commitTs} if it does not conflict.
     * {@code rowHashes} may contain duplicates and is not modified. {@code since} is where the conflict window
     * starts: the transaction's start, or an earlier one for a replay (see {@link TransactionManager#commit}).
     */
    public Result checkAndRecord(long since, long[] rowHashes, long commitTs) {
        return checkAndRecord(since, SCRATCH.get().prepare(rowHashes), commitTs);
    }

    /** As above, for keys already prepared; {@code keys}' scratch space is used, so it must be this thread's. */
    public Result checkAndRecord(long since, ConflictKeys keys, long commitTs) {
        int n = keys.size;
        if (n == 0) {
            return Result.COMMITTED;
        }
        locateAndTouch(keys);
        lockAll(keys);
        try {
            Result verdict = check(since, keys);
            if (verdict == Result.COMMITTED) {
                record(keys, commitTs);
            }
            return verdict;
        } finally {
            unlockAll(keys);
        }
    }

    /**
     * True if a row of the write set has a commit above {@code since}; records nothing. Used to name the reason of
     * an abort decided for another cause (a fence), so the client learns that retrying these writes is futile.
     */
    public boolean conflicts(long since, long[] rowHashes) {
        return conflicts(since, SCRATCH.get().prepare(rowHashes));
    }

    /** As above, for prepared keys. */
    public boolean conflicts(long since, ConflictKeys keys) {
        int n = keys.size;
        if (n == 0) {
            return false;
        }
        locateAndTouch(keys);
        lockAll(keys);
        try {
            long[] k = keys.keys;
            int[] b = keys.buckets;
            for (int i = 0; i < n; i++) {
                int way = find(b[i], k[i]);
                if (way >= 0 && table[base(b[i]) + 2 * way + 1] > since) {
                    return true;
                }
            }
            return false;
        } finally {
            unlockAll(keys);
        }
    }

    /** Fills in each key's bucket and reads every line of those buckets once, all misses in flight together. */
    private void locateAndTouch(ConflictKeys keys) {
        long[] k = keys.keys;
        int[] b = keys.buckets;
        long touched = 0;
        int previous = -1;
        for (int i = 0; i < keys.size; i++) {
            int bucket = bucketOf(k[i]);
            b[i] = bucket;
            if (bucket != previous) {
                int base = base(bucket);
                for (int offset = 0; offset < stride; offset += LINE) {
                    touched += table[base + offset];
                }
                previous = bucket;
            }
        }
        if (touched == 42) {
            // Never taken in practice; keeps the loads above from being optimized away.
            Thread.onSpinWait();
        }
    }

    /**
     * One pass over each bucket: a present row newer than {@code since} is a conflict; the new rows must fit in
     * the ways a new row may take. Conflicts win over lack of room (a retry of the same writes cannot succeed).
     * Leaves the way of each present row in {@code keys.ways} (-1 for a new row).
     */
    private Result check(long since, ConflictKeys keys) {
        long[] k = keys.keys;
        int[] b = keys.buckets;
        int[] found = keys.ways;
        int n = keys.size;
        boolean room = true;
        for (int first = 0; first < n; ) {
            int bucket = b[first];
            int last = first + 1;
            while (last < n && b[last] == bucket) {
                last++;
            }
            for (int i = first; i < last; i++) {
                found[i] = -1;
            }
            int base = base(bucket);
            int reusable = 0;
            int present = 0;
            int victim = -1; // the way a single new row takes: the first empty one, else the oldest not our own
            long oldest = Long.MAX_VALUE;
            for (int w = 0; w < ways; w++) {
                long key = table[base + 2 * w];
                if (key == EMPTY) {
                    reusable += ways - w; // empty ways only follow occupied ones
                    victim = w;
                    break;
                }
                long ts = table[base + 2 * w + 1];
                int own = indexOf(k, first, last, key);
                if (own >= 0) {
                    if (ts > since) {
                        return Result.CONFLICT;
                    }
                    found[own] = w;
                    present++;
                } else {
                    if (ts < since) {
                        reusable++;
                    }
                    if (ts < oldest) {
                        oldest = ts;
                        victim = w;
                    }
                }
            }
            int newRows = last - first - present;
            if (newRows > reusable) {
                room = false;
            } else if (newRows == 1) {
                for (int i = first; i < last; i++) {
                    if (found[i] < 0) {
                        found[i] = NEW_AT - victim; // record() needs no second scan
                    }
                }
            }
            first = last;
        }
        return room ? Result.COMMITTED : Result.NO_ROOM;
    }

    /** Updates present rows, then places new ones; every bucket is locked and {@link #check} passed. */
    private void record(ConflictKeys keys, long commitTs) {
        long[] k = keys.keys;
        int[] b = keys.buckets;
        int[] found = keys.ways;
        int n = keys.size;
        // Present rows first, so that a new row can never evict one of this write set's own rows (they now hold
        // the newest timestamp of the bucket's evictable ways).
        for (int i = 0; i < n; i++) {
            if (found[i] >= 0) {
                table[base(b[i]) + 2 * found[i] + 1] = commitTs;
            }
        }
        int fills = 0;
        int evictions = 0;
        for (int i = 0; i < n; i++) {
            int way = found[i];
            boolean evicting;
            if (way == -1) {
                evicting = place(base(b[i]), k[i], commitTs);
            } else if (way <= NEW_AT) {
                int at = base(b[i]) + 2 * (NEW_AT - way);
                evicting = table[at] != EMPTY;
                if (evicting) {
                    lowWaterMark.raiseTo(table[at + 1]);
                }
                table[at] = k[i];
                table[at + 1] = commitTs;
            } else {
                continue;
            }
            if (evicting) {
                evictions++;
            } else {
                fills++;
            }
        }
        if (fills > 0) {
            filled.add(fills);
        }
        if (evictions > 0) {
            evicted.add(evictions);
        }
    }

    /**
     * Puts a new key in the first empty way, or over the oldest one (raising the low-water mark to it); true if it
     * evicted one.
     */
    private boolean place(int base, long key, long commitTs) {
        int victim = base;
        long oldest = Long.MAX_VALUE;
        for (int w = 0; w < ways; w++) {
            int at = base + 2 * w;
            if (table[at] == EMPTY) {
                victim = at;
                oldest = EMPTY;
                break;
            }
            long ts = table[at + 1];
            if (ts < oldest) {
                oldest = ts;
                victim = at;
            }
        }
        if (oldest != EMPTY) {
            lowWaterMark.raiseTo(oldest);
        }
        table[victim] = key;
        table[victim + 1] = commitTs;
        return oldest != EMPTY;
    }

    private int find(int bucket, long key) {
        int base = base(bucket);
        for (int w = 0; w < ways; w++) {
            long k = table[base + 2 * w];
            if (k == key) {
                return w;
            }
            if (k == EMPTY) {
                return -1;
            }
        }
        return -1;
    }

    /** Position of {@code key} among the sorted keys {@code [from, to)} of one bucket, or -1. */
    private static int indexOf(long[] keys, int from, int to, long key) {
        if (to - from == 1) {
            return keys[from] == key ? from : -1; // the common case: one row of the write set in this bucket
        }
        int lo = from;
        int hi = to - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long v = keys[mid];
            if (v < key) {
                lo = mid + 1;
            } else if (v > key) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private int base(int bucket) {
        return ALIGNMENT_OFFSET + bucket * stride;
    }

    /** Monotone in the (signed) key, so sorted keys give ascending buckets; uses the key's top 32 bits. */
    int bucketOf(long key) {
        long top = (key >> 32) + 0x8000_0000L; // 0 .. 2^32 - 1, in the key's signed order
        return (int) ((top * buckets) >>> 32);
    }

    /**
     * Takes the locks of every bucket of the write set. All or nothing first: a commit that finds a lock busy
     * releases the ones it took and waits holding none, so a holder descheduled mid-commit (more caller threads
     * than cores: the embedded TM runs on its callers' threads) blocks only the commits that need its own buckets,
     * never a convoy of commits each holding some locks while waiting for the next. Measured on 2 cores, 64
     * threads: 0.84-1.18x the 2-thread rate, where ordered waiting gave 0.36-0.79x (docs/performance.md).
     */
    private void lockAll(ConflictKeys keys) {
        for (int attempt = 0; attempt < attemptsBeforeQueueing; attempt++) {
            int busy = tryLockAll(keys);
            if (busy < 0) {
                return;
            }
            lockWaits.increment();
            awaitFree(busy);
        }
        int[] b = keys.buckets;
        int previous = -1;
        for (int i = 0; i < keys.size; i++) {
            int lock = b[i] >>> lockShift;
            if (lock != previous) {
                lock(lock);
                previous = lock;
            }
        }
    }

    /**
     * Every lock of the write set in ascending order, or none: returns -1, or the lock found busy (the ones taken
     * before it are released).
     */
    private int tryLockAll(ConflictKeys keys) {
        int[] b = keys.buckets;
        int previous = -1;
        for (int i = 0; i < keys.size; i++) {
            int lock = b[i] >>> lockShift;
            if (lock != previous) {
                if (!tryLock(lock)) {
                    unlockBefore(keys, i);
                    return lock;
                }
                previous = lock;
            }
        }
        return -1;
    }

    /** A short spin: a holder that is running releases within it. */
    private boolean tryLock(int lock) {
        for (int spins = 0; spins < SPINS_BEFORE_YIELD; spins++) {
            if (locks.get(lock) == 0 && locks.compareAndSet(lock, 0, 1)) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /**
     * Waits, holding no lock, until {@code lock} looks free: yields first, then sleeps, so that a descheduled holder
     * gets a core.
     */
    private void awaitFree(int lock) {
        int looks = 0;
        while (locks.get(lock) != 0) {
            if (++looks < YIELDS_BEFORE_SLEEP || Thread.currentThread().isInterrupted()) {
                Thread.yield(); // parkNanos returns at once for an interrupted thread: it would spin hot
            } else {
                LockSupport.parkNanos(SLEEP_NANOS);
            }
        }
    }

    private void unlockAll(ConflictKeys keys) {
        unlockBefore(keys, keys.size);
    }

    /** Releases the locks of the keys {@code [0, end)}. */
    private void unlockBefore(ConflictKeys keys, int end) {
        int[] b = keys.buckets;
        int previous = -1;
        for (int i = 0; i < end; i++) {
            int lock = b[i] >>> lockShift;
            if (lock != previous) {
                locks.setRelease(lock, 0);
                previous = lock;
            }
        }
    }

    /**
     * Ordered waiting, the last resort of {@link #lockAll}: spins briefly, then yields (sleeping here could hold
     * the locks already taken for a whole sleep).
     */
    private void lock(int lock) {
        if (locks.compareAndSet(lock, 0, 1)) {
            return;
        }
        int spins = 0;
        while (locks.get(lock) != 0 || !locks.compareAndSet(lock, 0, 1)) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
