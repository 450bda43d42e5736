package io.phoenixtxn.snapshot;

import static io.phoenixtxn.snapshot.TimestampLayout.CHECKPOINT_GRID;
import static io.phoenixtxn.snapshot.TimestampLayout.FAST_PATH_FIRST_OFFSET;
import static io.phoenixtxn.snapshot.TimestampLayout.FAST_PATH_LAST_OFFSET;
import static io.phoenixtxn.snapshot.TimestampLayout.MAX_CHECKPOINTS;
import static io.phoenixtxn.snapshot.TimestampLayout.SLOTS_PER_MILLI;
import static io.phoenixtxn.snapshot.TimestampLayout.SLOT_WIDTH;
import static io.phoenixtxn.snapshot.TimestampLayout.UNITS_PER_MILLI;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TimestampLayoutTest {
    /** A realistic wall-clock millisecond (2024-06-01). */
    private static final long MILLIS = 1_717_200_000_000L;

    @Test
    void constantsMatchTheDocumentedLayout() {
        assertEquals(1_000_000L, UNITS_PER_MILLI, "Phoenix's MAX_TRANSACTIONS_PER_MILLISECOND");
        assertEquals(50L, CHECKPOINT_GRID, "Omid's MAX_CHECKPOINTS_PER_TXN");
        assertEquals(49, MAX_CHECKPOINTS);
        assertEquals(950L, SLOT_WIDTH);
        assertEquals(1052L, SLOTS_PER_MILLI);
        assertEquals(50L, FAST_PATH_FIRST_OFFSET);
        assertEquals(949L, FAST_PATH_LAST_OFFSET);
        // The last slot ends inside the millisecond (offset 999,399), one more would not fit.
        assertEquals(999_399L, (SLOTS_PER_MILLI - 1) * SLOT_WIDTH + SLOT_WIDTH - 1);
        assertTrue(SLOTS_PER_MILLI * SLOT_WIDTH + SLOT_WIDTH - 1 >= UNITS_PER_MILLI);
        assertEquals(1, (SLOT_WIDTH / CHECKPOINT_GRID) % 2, "950 must be an odd multiple of 50");
    }

    @Test
    void slotStartsAreMultiplesOfTheCheckpointGridAndStayInsideTheirMillisecond() {
        for (long ms = MILLIS; ms < MILLIS + 3; ms++) {
            long first = TimestampLayout.firstSlotOfMillis(ms);
            assertEquals(ms * UNITS_PER_MILLI, first);
            for (long i = 0; i < SLOTS_PER_MILLI; i++) {
                long start = first + i * SLOT_WIDTH;
                assertTrue(TimestampLayout.isSlotStart(start), TimestampLayout.describe(start));
                assertEquals(0, start % CHECKPOINT_GRID, "slot start must be a multiple of 50");
                assertEquals(start, TimestampLayout.txIdOf(start));
                assertEquals(i, TimestampLayout.slotIndexOf(start));
                assertEquals(0, TimestampLayout.offsetInSlot(start));
                long end = start + SLOT_WIDTH - 1;
                assertEquals(ms, TimestampLayout.millisOf(start));
                assertEquals(ms, TimestampLayout.millisOf(end), "slot " + i + " crosses a millisecond");
                for (long off = 0; off < SLOT_WIDTH; off += 37) {
                    assertEquals(start, TimestampLayout.slotStartOf(start + off));
                    assertEquals(off, TimestampLayout.offsetInSlot(start + off));
                    assertEquals(i, TimestampLayout.slotIndexOf(start + off));
                }
            }
            // The tail of the millisecond after the last slot holds no slot start.
            long tail = first + SLOTS_PER_MILLI * SLOT_WIDTH;
            for (long ts = tail; ts < first + UNITS_PER_MILLI; ts += 50) {
                assertFalse(TimestampLayout.isSlotStart(ts), TimestampLayout.describe(ts));
            }
        }
    }

    @Test
    void notSlotStarts() {
        long first = TimestampLayout.firstSlotOfMillis(MILLIS);
        assertFalse(TimestampLayout.isSlotStart(first + 1));
        assertFalse(TimestampLayout.isSlotStart(first + 50));
        assertFalse(TimestampLayout.isSlotStart(first + SLOT_WIDTH - 1));
        assertFalse(TimestampLayout.isSlotStart(-SLOT_WIDTH));
        assertTrue(TimestampLayout.isSlotStart(0));
    }

    @Test
    void firstSlotOfMillisRejectsOverflow() {
        assertThrows(ArithmeticException.class, () -> TimestampLayout.firstSlotOfMillis(Long.MAX_VALUE / 1000));
    }

    @Test
    void nextSlotStartIsMonotonicAndWrapsToTheNextMillisecond() {
        long ts = TimestampLayout.firstSlotOfMillis(MILLIS);
        Set<Long> seen = new HashSet<>();
        int count = 0;
        // Walk three full milliseconds slot by slot.
        while (TimestampLayout.millisOf(ts) < MILLIS + 3) {
            long next = TimestampLayout.nextSlotStart(ts);
            assertTrue(next > ts, "not monotonic at " + TimestampLayout.describe(ts));
            assertTrue(TimestampLayout.isSlotStart(next), TimestampLayout.describe(next));
            if (TimestampLayout.slotIndexOf(ts) == SLOTS_PER_MILLI - 1) {
                assertEquals(TimestampLayout.firstSlotOfMillis(TimestampLayout.millisOf(ts) + 1), next,
                        "last slot of a millisecond must wrap to the next millisecond");
            } else {
                assertEquals(ts + SLOT_WIDTH, next);
            }
            assertTrue(seen.add(ts));
            ts = next;
            count++;
        }
        assertEquals(3 * SLOTS_PER_MILLI, count);
    }

    @Test
    void nextSlotStartOfAnyTimestampIsTheFollowingSlot() {
        long first = TimestampLayout.firstSlotOfMillis(MILLIS);
        // Anywhere inside slot 7 (start, checkpoint, fast path) leads to slot 8.
        long slot7 = first + 7 * SLOT_WIDTH;
        for (long off = 0; off < SLOT_WIDTH; off++) {
            assertEquals(first + 8 * SLOT_WIDTH, TimestampLayout.nextSlotStart(slot7 + off));
        }
        // Anywhere inside the last slot or the unused tail leads to the next millisecond.
        for (long ts = first + (SLOTS_PER_MILLI - 1) * SLOT_WIDTH; ts < first + UNITS_PER_MILLI; ts++) {
            assertEquals(first + UNITS_PER_MILLI, TimestampLayout.nextSlotStart(ts), TimestampLayout.describe(ts));
        }
        // Timestamps that are not slot starts (e.g. a storage reservation bound) still move forward.
        assertEquals(SLOT_WIDTH, TimestampLayout.nextSlotStart(0));
    }

    @Test
    void txIdOfRecoversTheIdFromEveryCheckpointVersion() {
        long first = TimestampLayout.firstSlotOfMillis(MILLIS);
        for (long slot : new long[] {0, 1, 2, 500, SLOTS_PER_MILLI - 1}) {
            long txId = first + slot * SLOT_WIDTH;
            for (int k = 0; k <= MAX_CHECKPOINTS; k++) {
                assertEquals(txId, TimestampLayout.txIdOf(txId + k));
                assertEquals(k, TimestampLayout.checkpointsOf(txId + k));
                assertFalse(TimestampLayout.isFastPathVersion(txId + k), "checkpoint " + k);
            }
            // One past the last checkpoint leaves the grid cell of the id.
            assertNotEquals(txId, TimestampLayout.txIdOf(txId + MAX_CHECKPOINTS + 1));
        }
    }

    @Test
    void fastPathOffsetsNeverEqualATransactionIdOrCheckpoint() {
        // Every transaction id and checkpoint version of two milliseconds ...
        Set<Long> txVersions = new HashSet<>();
        Set<Long> txIds = new TreeSet<>();
        for (long ms = MILLIS; ms < MILLIS + 2; ms++) {
            for (long i = 0; i < SLOTS_PER_MILLI; i++) {
                long txId = TimestampLayout.firstSlotOfMillis(ms) + i * SLOT_WIDTH;
                txIds.add(txId);
                for (int k = 0; k <= MAX_CHECKPOINTS; k++) {
                    txVersions.add(txId + k);
                }
            }
        }
        // ... against every fast-path version of the same milliseconds.
        int fastPath = 0;
        for (long txId : txIds) {
            for (long off = FAST_PATH_FIRST_OFFSET; off <= FAST_PATH_LAST_OFFSET; off++) {
                long v = txId + off;
                assertTrue(TimestampLayout.isFastPathVersion(v), TimestampLayout.describe(v));
                assertFalse(txVersions.contains(v), "fast-path version collides: " + TimestampLayout.describe(v));
                assertFalse(TimestampLayout.isSlotStart(v));
                assertFalse(txIds.contains(TimestampLayout.txIdOf(v)),
                        "txIdOf(fast-path version) must not name a transaction: " + TimestampLayout.describe(v));
                assertEquals(txId, TimestampLayout.slotStartOf(v));
                fastPath++;
            }
        }
        assertEquals(2 * SLOTS_PER_MILLI * (FAST_PATH_LAST_OFFSET - FAST_PATH_FIRST_OFFSET + 1), fastPath);
    }

    @Test
    void bucketByteOfConsecutiveSlotStartsCoversAllEightEvenValues() {
        long ts = TimestampLayout.firstSlotOfMillis(MILLIS);
        // Any 8 consecutive slots inside a millisecond hit the 8 even values exactly once.
        for (int window = 0; window + 8 <= SLOTS_PER_MILLI; window++) {
            BitSet buckets = new BitSet();
            for (int j = 0; j < 8; j++) {
                long b = (ts + (window + j) * SLOT_WIDTH) & 0x0F;
                assertEquals(0, b % 2);
                buckets.set((int) b);
            }
            assertEquals(8, buckets.cardinality(), "window at slot " + window + ": " + buckets);
        }
        // Over a long walk (across millisecond boundaries) the bucket byte is spread evenly.
        int[] hits = new int[16];
        long t = ts;
        int n = 8 * 10_000;
        for (int i = 0; i < n; i++) {
            hits[(int) (t & 0x0F)]++;
            t = TimestampLayout.nextSlotStart(t);
        }
        for (int b = 0; b < 16; b++) {
            if (b % 2 == 1) {
                assertEquals(0, hits[b]);
            } else {
                assertTrue(Math.abs(hits[b] - n / 8) < n / 80, "bucket " + b + " got " + hits[b]);
            }
        }
    }

    @Test
    void describeIsReadable() {
        long ts = TimestampLayout.firstSlotOfMillis(MILLIS) + 3 * SLOT_WIDTH + 2;
        assertEquals(MILLIS + ".3+2", TimestampLayout.describe(ts));
    }
}
