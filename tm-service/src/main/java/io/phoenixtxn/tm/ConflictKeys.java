package io.phoenixtxn.tm;

import java.util.Arrays;

/**
 * A write set as the {@link ConflictTable} consumes it (FAST'17 sec. 4): every row hash spread once more by a
 * bijective mix (so clustered ids do not share buckets), 0 folded onto 1 (0 marks an empty way), sorted and without
 * duplicates. The table's bucket index is monotone in the mixed key, so this order is also bucket order: rows of
 * one bucket are adjacent, and buckets are locked in ascending order (no deadlock) without a second sort.
 *
 * <p>An instance is a reusable buffer for one thread: {@link #prepare} allocates only when a write set is larger
 * than any before it. A client can do the sort for the TM ({@link #inTableOrder}): the TM then only verifies the
 * order, in one pass. The mix is invertible ({@link #unmix}), so the wire keeps carrying plain row hashes.
 */
public final class ConflictKeys {
    private static final long M1 = 0xff51afd7ed558ccdL;
    private static final long M2 = 0xc4ceb9fe1a85ec53L;
    private static final long M1_INVERSE = inverse(M1);
    private static final long M2_INVERSE = inverse(M2);
    /** Below this many keys insertion sort beats {@link Arrays#sort}'s dispatch. */
    private static final int INSERTION_SORT_MAX = 24;

    long[] keys;
    int size;
    /** Scratch of {@link ConflictTable}: the bucket of each key and the way it was found in (or -1). */
    int[] buckets;
    int[] ways;

    public ConflictKeys() {
        this(64);
    }

    ConflictKeys(int capacity) {
        keys = new long[capacity];
        buckets = new int[capacity];
        ways = new int[capacity];
    }

    /** Mixes, sorts and deduplicates {@code rowHashes}; the array itself is not modified. */
    public ConflictKeys prepare(long[] rowHashes) {
        return prepare(rowHashes, 0, rowHashes.length);
    }

    /** As {@link #prepare(long[])} for {@code rowHashes[from, to)}. */
    public ConflictKeys prepare(long[] rowHashes, int from, int to) {
        int n = to - from;
        ensureCapacity(n);
        long[] k = keys;
        boolean sorted = true;
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            long key = keyOf(rowHashes[from + i]);
            k[i] = key;
            sorted &= key >= previous;
            previous = key;
        }
        if (!sorted) {
            sort(k, n);
        }
        size = dedupSorted(k, n);
        return this;
    }

    public int size() {
        return size;
    }

    /** The i-th key, ascending. */
    public long key(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " >= " + size);
        }
        return keys[i];
    }

    /** The table key of a row hash: mixed, never 0. */
    public static long keyOf(long rowHash) {
        long key = mix(rowHash);
        return key == 0 ? 1 : key;
    }

    /**
     * The same rows in the order the TM's table wants them, duplicates dropped: what a client sends so the TM
     * skips the sort. Plain row hashes, so any TM accepts them; a new array, {@code rowHashes} is not modified.
     */
    public static long[] inTableOrder(long[] rowHashes) {
        int n = rowHashes.length;
        long[] mixed = new long[n];
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            mixed[i] = mix(rowHashes[i]);
            sorted &= i == 0 || mixed[i] >= mixed[i - 1];
        }
        if (!sorted) {
            sort(mixed, n);
        }
        int distinct = dedupSorted(mixed, n);
        long[] out = distinct == n ? mixed : Arrays.copyOf(mixed, distinct);
        for (int i = 0; i < distinct; i++) {
            out[i] = unmix(out[i]);
        }
        return out;
    }

    /** MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit over the whole word. */
    public static long mix(long z) {
        z = (z ^ (z >>> 33)) * M1;
        z = (z ^ (z >>> 33)) * M2;
        return z ^ (z >>> 33);
    }

    /** The inverse of {@link #mix}. */
    public static long unmix(long z) {
        z = (z ^ (z >>> 33)) * M2_INVERSE;
        z = (z ^ (z >>> 33)) * M1_INVERSE;
        return z ^ (z >>> 33);
    }

    private void ensureCapacity(int n) {
        if (n > keys.length) {
            int capacity = Math.max(n, keys.length * 2);
            keys = new long[capacity];
            buckets = new int[capacity];
            ways = new int[capacity];
        }
    }

    private static void sort(long[] a, int n) {
        if (n > INSERTION_SORT_MAX) {
            Arrays.sort(a, 0, n);
            return;
        }
        for (int i = 1; i < n; i++) {
            long v = a[i];
            int j = i - 1;
            while (j >= 0 && a[j] > v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }

    private static int dedupSorted(long[] a, int n) {
        int out = Math.min(n, 1);
        for (int i = 1; i < n; i++) {
            if (a[i] != a[out - 1]) {
                a[out++] = a[i];
            }
        }
        return out;
    }

    /** The multiplicative inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits). */
    private static long inverse(long odd) {
        long x = odd; // correct to 3 bits: odd * odd == 1 (mod 8)
        for (int i = 0; i < 5; i++) {
            x *= 2 - odd * x;
        }
        return x;
    }
}
