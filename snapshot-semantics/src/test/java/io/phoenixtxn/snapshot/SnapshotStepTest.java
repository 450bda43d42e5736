package io.phoenixtxn.snapshot;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Write-pointer steps (a row re-inserted after its delete in one transaction gets a newer version). */
class SnapshotStepTest {
    private static final long TX = TimestampLayout.firstSlotOfMillis(1_700_000_000_000L);

    @Test
    void stepAtSnapshotLevelKeepsReadingOwnWrites() {
        Snapshot s = Snapshot.begin(TX).step();
        assertEquals(TX + 1, s.writePointer());
        assertEquals(TX + 1, s.readPointer());
        assertTrue(Visibility.isVisible(s, TX, Visibility.NOT_COMMITTED), "the delete written before the step");
        assertTrue(Visibility.isVisible(s, TX + 1, Visibility.NOT_COMMITTED), "the re-insert after it");
    }

    @Test
    void stepInsideAStatementThatExcludesItsOwnWritesStillExcludesThem() {
        Snapshot s = Snapshot.begin(TX).checkpoint(); // statement writes at TX+1, reads up to TX
        Snapshot stepped = s.step();
        assertEquals(TX + 2, stepped.writePointer());
        assertEquals(TX, stepped.readPointer());
        assertTrue(Visibility.isVisible(stepped, TX, Visibility.NOT_COMMITTED));
        assertFalse(Visibility.isVisible(stepped, TX + 1, Visibility.NOT_COMMITTED), "this statement's delete");
        assertFalse(Visibility.isVisible(stepped, TX + 2, Visibility.NOT_COMMITTED), "this statement's re-insert");
    }

    @Test
    void aRowReInsertedAfterItsDeleteSurvivesBeforeAndAfterCommit() {
        Snapshot own = Snapshot.begin(TX).step(); // delete at TX, re-insert at TX+1
        assertFalse(Visibility.isMaskedByFamilyDelete(own, TX, Visibility.NOT_COMMITTED, TX + 1,
                Visibility.NOT_COMMITTED));
        assertTrue(Visibility.isMaskedByFamilyDelete(own, TX, Visibility.NOT_COMMITTED, TX,
                Visibility.NOT_COMMITTED), "a put and a delete at the same version: the delete wins (HBase rule)");
        long commit = TimestampLayout.nextSlotStart(TX);
        Snapshot later = Snapshot.begin(TimestampLayout.nextSlotStart(commit));
        assertFalse(Visibility.isMaskedByFamilyDelete(later, TX, commit, TX + 1, commit), "after commit too");
        assertTrue(Visibility.isMaskedByFamilyDelete(later, TX + 1, commit, TX, commit));
        long olderCommit = TX - TimestampLayout.SLOT_WIDTH;
        assertTrue(Visibility.isMaskedByFamilyDelete(later, TX, commit, TX - 2 * TimestampLayout.SLOT_WIDTH,
                olderCommit), "an older transaction's cell is masked by a newer delete");
    }

    @Test
    void stepsShareTheCheckpointBudget() {
        Snapshot s = Snapshot.begin(TX);
        for (int i = 0; i < TimestampLayout.MAX_CHECKPOINTS; i++) {
            s = i % 2 == 0 ? s.step() : s.checkpoint();
        }
        Snapshot full = s;
        assertThrows(CheckpointLimitException.class, full::step);
    }
}
