package io.phoenixtxn.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SnapshotTest {
    static final long TX = TimestampLayout.firstSlotOfMillis(1_717_200_000_000L) + 12 * TimestampLayout.SLOT_WIDTH;

    @Test
    void beginPointsEverythingAtTheTransactionId() {
        Snapshot s = Snapshot.begin(TX);
        assertEquals(TX, s.txId());
        assertEquals(TX, s.readPointer());
        assertEquals(TX, s.writePointer());
        assertSame(VisibilityLevel.SNAPSHOT, s.level());
        assertEquals(TX + 1, s.maxVersionExclusive());
    }

    @Test
    void beginRejectsTimestampsOffTheCheckpointGrid() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Snapshot.begin(TX + 1));
        assertTrue(e.getMessage().contains("Not a transaction id"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Snapshot.begin(TX + 49));
    }

    @Test
    void checkpointMovesTheWritePointerAndExcludesTheCurrentStatement() {
        Snapshot s0 = Snapshot.begin(TX);
        Snapshot s1 = s0.checkpoint();
        assertEquals(TX, s1.txId());
        assertEquals(TX, s1.readPointer(), "read pointer = the previous write pointer");
        assertEquals(TX + 1, s1.writePointer());
        assertSame(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, s1.level());
        assertEquals(TX + 2, s1.maxVersionExclusive());
        // Immutable: the original is untouched.
        assertEquals(Snapshot.begin(TX), s0);

        Snapshot s2 = s1.checkpoint();
        assertEquals(TX + 1, s2.readPointer());
        assertEquals(TX + 2, s2.writePointer());
        assertSame(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, s2.level());
        // A checkpoint from any level resets the level to SNAPSHOT_EXCLUDE_CURRENT.
        Snapshot s3 = s2.withLevel(VisibilityLevel.SNAPSHOT_ALL).checkpoint();
        assertEquals(TX + 2, s3.readPointer());
        assertEquals(TX + 3, s3.writePointer());
        assertSame(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, s3.level());
    }

    @Test
    void withLevelKeepsTheWritePointerAndSetsTheReadPointer() {
        Snapshot s = Snapshot.begin(TX).checkpoint().checkpoint().checkpoint(); // write pointer TX + 3
        Snapshot snap = s.withLevel(VisibilityLevel.SNAPSHOT);
        assertEquals(TX + 3, snap.writePointer());
        assertEquals(TX + 3, snap.readPointer());
        assertSame(VisibilityLevel.SNAPSHOT, snap.level());

        Snapshot all = s.withLevel(VisibilityLevel.SNAPSHOT_ALL);
        assertEquals(TX + 3, all.writePointer());
        assertEquals(TX + 3, all.readPointer());
        assertSame(VisibilityLevel.SNAPSHOT_ALL, all.level());

        Snapshot excl = snap.withLevel(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
        assertEquals(TX + 3, excl.writePointer());
        assertEquals(TX + 2, excl.readPointer());
        assertSame(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, excl.level());

        // At the transaction id itself the read pointer cannot drop below the id.
        Snapshot first = Snapshot.begin(TX).withLevel(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
        assertEquals(TX, first.readPointer());
        assertEquals(TX, first.writePointer());
        // Level round trip.
        assertEquals(s.withLevel(VisibilityLevel.SNAPSHOT), excl.withLevel(VisibilityLevel.SNAPSHOT));
    }

    @Test
    void exactly49CheckpointsThenAHelpfulError() {
        Snapshot s = Snapshot.begin(TX);
        for (int i = 1; i <= TimestampLayout.MAX_CHECKPOINTS; i++) {
            s = s.checkpoint();
            assertEquals(TX + i, s.writePointer());
            assertEquals(TX, TimestampLayout.txIdOf(s.writePointer()), "write pointer left the id's grid cell");
            assertEquals(i, TimestampLayout.checkpointsOf(s.writePointer()));
        }
        Snapshot last = s;
        CheckpointLimitException e = assertThrows(CheckpointLimitException.class, last::checkpoint);
        assertTrue(e.getMessage().contains(Long.toString(TX)), e.getMessage());
        assertTrue(e.getMessage().contains("49"), e.getMessage());
        assertTrue(e.getMessage().contains("new transaction"), e.getMessage());
        assertTrue(e instanceof IllegalStateException);
        // A level change does not reset the budget.
        assertThrows(CheckpointLimitException.class,
                () -> last.withLevel(VisibilityLevel.SNAPSHOT).checkpoint());
    }

    @Test
    void ofValidatesItsParts() {
        Snapshot ok = Snapshot.of(TX, TX + 2, TX + 3, VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
        assertEquals(TX + 3, ok.writePointer());
        assertThrows(IllegalArgumentException.class, () -> Snapshot.of(TX + 7, TX, TX, VisibilityLevel.SNAPSHOT));
        IllegalArgumentException below = assertThrows(IllegalArgumentException.class,
                () -> Snapshot.of(TX, TX, TX - 1, VisibilityLevel.SNAPSHOT));
        assertTrue(below.getMessage().contains("outside transaction"), below.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Snapshot.of(TX, TX, TX + TimestampLayout.MAX_CHECKPOINTS + 1, VisibilityLevel.SNAPSHOT));
        assertEquals(TX + 49, Snapshot.of(TX, TX, TX + 49, VisibilityLevel.SNAPSHOT).writePointer());
        assertThrows(NullPointerException.class, () -> Snapshot.of(TX, TX, TX, null));
    }

    @Test
    void equalsHashCodeToString() {
        Snapshot a = Snapshot.of(TX, TX, TX + 1, VisibilityLevel.SNAPSHOT);
        Snapshot b = Snapshot.of(TX, TX, TX + 1, VisibilityLevel.SNAPSHOT);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, Snapshot.of(TX, TX, TX + 1, VisibilityLevel.SNAPSHOT_ALL));
        assertNotEquals(a, Snapshot.of(TX, TX + 1, TX + 1, VisibilityLevel.SNAPSHOT));
        assertNotEquals(a, Snapshot.of(TX, TX, TX + 2, VisibilityLevel.SNAPSHOT));
        assertNotEquals(a, "not a snapshot");
        assertTrue(a.toString().contains(Long.toString(TX)) && a.toString().contains("SNAPSHOT"), a.toString());
    }

    @Test
    void visibilityLevelFromOrdinal() {
        for (VisibilityLevel l : VisibilityLevel.values()) {
            assertSame(l, VisibilityLevel.fromOrdinal(l.ordinal()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VisibilityLevel.fromOrdinal(3));
        assertTrue(e.getMessage().contains("3"));
        assertThrows(IllegalArgumentException.class, () -> VisibilityLevel.fromOrdinal(-1));
    }
}
