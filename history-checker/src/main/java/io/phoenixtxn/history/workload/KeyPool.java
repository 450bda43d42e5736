package io.phoenixtxn.history.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The keys list-append transactions use: a few active keys (so transactions contend), each retired after a number
 * of appends and replaced by a fresh key (Elle's rotation), so lists and the checker's work stay small however long
 * the run. Thread-safe.
 */
final class KeyPool {
    private final long[] active;
    private final int[] appendsLeft;
    private final int appendsPerKey;
    private long nextKey;

    KeyPool(int activeKeys, int appendsPerKey) {
        if (activeKeys < 2 || appendsPerKey < 1) {
            throw new IllegalArgumentException("need at least 2 active keys and 1 append per key, got " + activeKeys
                    + " and " + appendsPerKey);
        }
        this.active = new long[activeKeys];
        this.appendsLeft = new int[activeKeys];
        this.appendsPerKey = appendsPerKey;
        for (int i = 0; i < activeKeys; i++) {
            active[i] = nextKey++;
            appendsLeft[i] = appendsPerKey;
        }
    }

    /** {@code n} distinct active keys, at random. */
    synchronized List<Long> pick(Random random, int n) {
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < active.length; i++) {
            slots.add(i);
        }
        java.util.Collections.shuffle(slots, random);
        List<Long> keys = new ArrayList<>();
        for (int i = 0; i < Math.min(n, active.length); i++) {
            keys.add(active[slots.get(i)]);
        }
        return keys;
    }

    /**
     * Takes {@code appends} appends from the key's budget; retires a key whose budget ran out (transactions already
     * generated for it still run; new ones get its successor).
     */
    synchronized void used(long key, int appends) {
        for (int i = 0; i < active.length; i++) {
            if (active[i] == key) {
                appendsLeft[i] -= appends;
                if (appendsLeft[i] <= 0) {
                    active[i] = nextKey++;
                    appendsLeft[i] = appendsPerKey;
                }
                return;
            }
        }
    }

    /** Every key ever handed out: 0 .. this - 1. */
    synchronized long keysUsed() {
        return nextKey;
    }

    synchronized int activeCount() {
        return active.length;
    }
}
