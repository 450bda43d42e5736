package io.phoenixtxn.snapshot;

import static io.phoenixtxn.snapshot.Visibility.NOT_COMMITTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The visibility matrix: own writes (before, at, after the write pointer) x level x other transactions (committed
 * before the reader started, committed after, never committed), plus fast-path versions and {@code orderOf}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VisibilityTest {
    static final long MILLIS = 1_717_200_000_000L;

    static long slot(long n) {
        return TimestampLayout.firstSlotOfMillis(MILLIS) + n * TimestampLayout.SLOT_WIDTH;
    }

    /** The reader. */
    static final long R = slot(100);
    /** Started before R, committed before R started. */
    static final long A = slot(10);
    static final long A_COMMIT = slot(50);
    /** Started before R, committed after R started. */
    static final long B = slot(20);
    static final long B_COMMIT = slot(150);
    /** Started after R, committed. */
    static final long C = slot(120);
    static final long C_COMMIT = slot(130);
    /** Started before R, never committed (pending, aborted or invalidated). */
    static final long D = slot(30);
    /** Started in an earlier millisecond, committed just before R started (the slot right below). */
    static final long E = TimestampLayout.firstSlotOfMillis(MILLIS - 1) + 1051 * TimestampLayout.SLOT_WIDTH;
    static final long E_COMMIT = slot(99);

    /** The documented rule for own writes, written independently of the implementation. */
    static boolean ownVisible(VisibilityLevel level, int versionOffset, int writePointerOffset) {
        return level == VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT ? versionOffset < writePointerOffset
                : versionOffset <= writePointerOffset;
    }

    static Snapshot snapshot(long txId, int writePointerOffset, VisibilityLevel level) {
        Snapshot s = Snapshot.begin(txId);
        for (int i = 0; i < writePointerOffset; i++) {
            s = s.checkpoint();
        }
        return s.withLevel(level);
    }

    @ParameterizedTest
    @EnumSource(VisibilityLevel.class)
    void ownWritesBeforeAtAndAfterTheWritePointer(VisibilityLevel level) {
        for (int wp = 0; wp <= TimestampLayout.MAX_CHECKPOINTS; wp++) {
            Snapshot s = snapshot(R, wp, level);
            assertEquals(R + wp, s.writePointer());
            for (int v = 0; v <= TimestampLayout.MAX_CHECKPOINTS; v++) {
                long version = R + v;
                assertTrue(Visibility.isOwnWrite(s, version));
                boolean expected = ownVisible(level, v, wp);
                // The commit timestamp is ignored for own writes: pending, or any value at all.
                for (long commitTs : new long[] {NOT_COMMITTED, R - 1, R + 1, slot(500)}) {
                    assertEquals(expected, Visibility.isVisible(s, version, commitTs),
                            level + " wp=+" + wp + " version=+" + v + " commitTs=" + commitTs);
                }
            }
        }
    }

    @Test
    void ownWritesSpotChecks() {
        Snapshot s = snapshot(R, 2, VisibilityLevel.SNAPSHOT);
        assertTrue(Visibility.isVisible(s, R + 1, NOT_COMMITTED), "before the write pointer");
        assertTrue(Visibility.isVisible(s, R + 2, NOT_COMMITTED), "at the write pointer: read-your-own-writes");
        assertFalse(Visibility.isVisible(s, R + 3, NOT_COMMITTED), "after the write pointer");

        Snapshot x = snapshot(R, 2, VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
        assertTrue(Visibility.isVisible(x, R + 1, NOT_COMMITTED));
        assertFalse(Visibility.isVisible(x, R + 2, NOT_COMMITTED), "the current statement's own writes");
        assertFalse(Visibility.isVisible(x, R + 3, NOT_COMMITTED));

        Snapshot all = snapshot(R, 2, VisibilityLevel.SNAPSHOT_ALL);
        assertTrue(Visibility.isVisible(all, R, NOT_COMMITTED));
        assertTrue(Visibility.isVisible(all, R + 2, NOT_COMMITTED));
        assertFalse(Visibility.isVisible(all, R + 3, NOT_COMMITTED));

        // Right after begin, SNAPSHOT_EXCLUDE_CURRENT hides even the first statement's writes.
        Snapshot first = Snapshot.begin(R).withLevel(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
        assertFalse(Visibility.isVisible(first, R, NOT_COMMITTED));
        // The checkpoint makes them visible and hides the next statement's.
        Snapshot cp = Snapshot.begin(R).checkpoint();
        assertTrue(Visibility.isVisible(cp, R, NOT_COMMITTED));
        assertFalse(Visibility.isVisible(cp, R + 1, NOT_COMMITTED));
    }

    @ParameterizedTest
    @EnumSource(VisibilityLevel.class)
    void otherTransactionsAtEveryLevelAndWritePointer(VisibilityLevel level) {
        for (int wp : new int[] {0, 1, 7, TimestampLayout.MAX_CHECKPOINTS}) {
            Snapshot s = snapshot(R, wp, level);
            for (int k : new int[] {0, 1, 5, TimestampLayout.MAX_CHECKPOINTS}) {
                String at = level + " wp=+" + wp + " checkpoint=" + k;
                assertFalse(Visibility.isOwnWrite(s, A + k));
                assertTrue(Visibility.isVisible(s, A + k, A_COMMIT), "committed before start, " + at);
                assertTrue(Visibility.isVisible(s, E + k, E_COMMIT), "committed in the slot below, " + at);
                assertFalse(Visibility.isVisible(s, B + k, B_COMMIT), "committed after start, " + at);
                assertFalse(Visibility.isVisible(s, C + k, C_COMMIT), "started and committed after, " + at);
                assertFalse(Visibility.isVisible(s, D + k, NOT_COMMITTED), "not committed, " + at);
                assertFalse(Visibility.isVisible(s, C + k, NOT_COMMITTED), "later and not committed, " + at);
                assertFalse(Visibility.isVisible(s, A + k, NOT_COMMITTED), "aborted, " + at);
            }
        }
    }

    @Test
    void aCommitInTheReadersOwnSlotAfterItStartedIsInvisible() {
        // A commit timestamp can never equal R (the oracle issues each once), but the boundary must still be
        // strict: anything at or after the start is not part of the snapshot.
        Snapshot s = Snapshot.begin(R);
        assertFalse(Visibility.isVisible(s, A, R));
        assertTrue(Visibility.isVisible(s, A, R - 1));
        assertFalse(Visibility.isVisible(s, A, R + 1));
    }

    @ParameterizedTest
    @EnumSource(VisibilityLevel.class)
    void fastPathVersions(VisibilityLevel level) {
        Snapshot s = snapshot(R, 3, level);
        // A fast-path version is written together with its commit: its commit timestamp is the version itself.
        for (long off = TimestampLayout.FAST_PATH_FIRST_OFFSET; off <= TimestampLayout.FAST_PATH_LAST_OFFSET; off++) {
            long before = slot(99) + off; // between the previous global timestamp and R
            long inOwnSlot = R + off;     // issued after R in R's own slot
            long later = slot(101) + off;
            assertTrue(TimestampLayout.isFastPathVersion(before));
            assertFalse(Visibility.isOwnWrite(s, inOwnSlot), "a fast-path version is never an own write: +" + off);
            assertFalse(Visibility.isOwnWrite(s, before));
            assertTrue(Visibility.isVisible(s, before, before), "fast path before start +" + off);
            assertFalse(Visibility.isVisible(s, inOwnSlot, inOwnSlot), "fast path in own slot after start +" + off);
            assertFalse(Visibility.isVisible(s, later, later), "fast path after start +" + off);
            assertFalse(Visibility.isVisible(s, before, NOT_COMMITTED), "uncommitted fast path +" + off);
        }
    }

    @Test
    void orderOfPutsOwnWritesAfterEveryCommittedVersion() {
        Snapshot s = snapshot(R, 4, VisibilityLevel.SNAPSHOT);
        // Committed versions order by commit timestamp, not by version: "early" started before A, committed after.
        long early = slot(1);
        long earlyCommit = slot(90);
        assertTrue(early < A);
        assertEquals(earlyCommit, Visibility.orderOf(s, early, earlyCommit));
        assertEquals(A_COMMIT, Visibility.orderOf(s, A + 3, A_COMMIT));
        assertTrue(Visibility.orderOf(s, early, earlyCommit) > Visibility.orderOf(s, A, A_COMMIT));
        // Own writes order by write pointer and come after every visible committed version.
        long maxCommitted = R - 1;
        for (int k = 0; k <= 4; k++) {
            assertEquals(R + k, Visibility.orderOf(s, R + k, NOT_COMMITTED));
            assertTrue(Visibility.orderOf(s, R + k, NOT_COMMITTED) > maxCommitted);
            if (k > 0) {
                assertTrue(Visibility.orderOf(s, R + k, NOT_COMMITTED) > Visibility.orderOf(s, R + k - 1, 0));
            }
        }
        // Fast-path versions order by their commit timestamp too.
        long fp = slot(99) + 200;
        assertEquals(fp, Visibility.orderOf(s, fp, fp));
        // Family delete rule: a committed delete masks committed puts at or below its order.
        long deleteOrder = Visibility.orderOf(s, A, A_COMMIT);
        assertTrue(Visibility.orderOf(s, A, A_COMMIT) <= deleteOrder, "equal order masks");
        assertTrue(Visibility.orderOf(s, early, earlyCommit) > deleteOrder, "a later commit is not masked");
    }
}
