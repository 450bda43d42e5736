package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Write sets as the conflict table wants them, and the client-side sort that lets the TM skip its own. */
class ConflictKeysTest {

    @Test
    void theMixIsABijectionAndUnmixInvertsIt() {
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 100_000; i++) {
            long x = random.nextLong();
            assertEquals(x, ConflictKeys.unmix(ConflictKeys.mix(x)));
        }
        for (long x : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
            assertEquals(x, ConflictKeys.unmix(ConflictKeys.mix(x)));
        }
    }

    @Test
    void keysAreSortedDistinctAndNeverZero() {
        ConflictKeys keys = new ConflictKeys().prepare(new long[] {5, 0, 5, 3, 0, 9, 3});
        assertEquals(4, keys.size(), "0, 3, 5, 9");
        for (int i = 0; i < keys.size(); i++) {
            assertNotEquals(0, keys.key(i));
            if (i > 0) {
                assertTrue(keys.key(i) > keys.key(i - 1));
            }
        }
        assertEquals(1, keys.key(Arrays.binarySearch(keysOf(keys), ConflictKeys.keyOf(0))), "0 is folded onto 1");
    }

    @Test
    void theClientsOrderGivesTheSameKeysAndNeedsNoSortOnTheTm() {
        SplittableRandom random = new SplittableRandom(6);
        for (int round = 0; round < 1_000; round++) {
            long[] rows = new long[random.nextInt(300)];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = random.nextInt(8) == 0 ? 0 : random.nextLong(1 + random.nextInt(500));
            }
            long[] sent = ConflictKeys.inTableOrder(rows);
            assertArrayEquals(Arrays.stream(rows).distinct().sorted().toArray(),
                    Arrays.stream(sent).sorted().toArray(), "the same rows, each once");
            for (int i = 1; i < sent.length; i++) {
                assertTrue(ConflictKeys.keyOf(sent[i]) >= ConflictKeys.keyOf(sent[i - 1]), "table order");
            }
            assertArrayEquals(keysOf(new ConflictKeys().prepare(rows)), keysOf(new ConflictKeys().prepare(sent)));
        }
    }

    @Test
    void theBufferGrowsForLargeWriteSetsAndIsReused() {
        ConflictKeys keys = new ConflictKeys();
        long[] big = new long[10_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = i + 1;
        }
        assertEquals(10_000, keys.prepare(big).size());
        assertEquals(2, keys.prepare(new long[] {7, 8}).size());
        assertEquals(3, keys.prepare(big, 10, 13).size());
    }

    private static long[] keysOf(ConflictKeys keys) {
        long[] out = new long[keys.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = keys.key(i);
        }
        return out;
    }
}
