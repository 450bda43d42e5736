package io.phoenixtxn.snapshot;

import static io.phoenixtxn.snapshot.Visibility.NOT_COMMITTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The "committed below" rule of tables made transactional after they were written: exact on both sides of the
 * bound (no version a transaction writes is below it, no millisecond timestamp reaches it), and through the one
 * visibility function pre-switch cells are visible to every snapshot and ordered before every transactional write.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PreTransactionalCellsTest {
    private static final long NOW_MILLIS = 1_780_000_000_000L;
    private static final PreTransactionalCells RULE = PreTransactionalCells.CONVERTED;

    private static long slot(long millis, long index) {
        return TimestampLayout.firstSlotOfMillis(millis) + index * TimestampLayout.SLOT_WIDTH;
    }

    @Test
    void noVersionATransactionWritesIsCoveredWhateverItsKind() {
        long lastSlot = slot(NOW_MILLIS, TimestampLayout.SLOTS_PER_MILLI - 1);
        long[] transactional = {
            slot(NOW_MILLIS, 0), slot(NOW_MILLIS, 0) + 1, slot(NOW_MILLIS, 0) + TimestampLayout.MAX_CHECKPOINTS,
            slot(NOW_MILLIS, 7) + TimestampLayout.FAST_PATH_FIRST_OFFSET,
            slot(NOW_MILLIS, 7) + TimestampLayout.FAST_PATH_LAST_OFFSET, lastSlot, lastSlot + 949,
            // The earliest TM clock the rule accepts (1970-01-12), and far in the future.
            TimestampLayout.firstSlotOfMillis(1_000_000_000L), slot(4_000_000_000_000L, 3) + 17};
        for (long version : transactional) {
            assertFalse(RULE.covers(version), TimestampLayout.describe(version));
            assertEquals(NOT_COMMITTED, RULE.commitTimestampOf(version));
            assertFalse(RULE.refusesWriteAt(version));
        }
    }

    @Test
    void everyMillisecondTimestampIsCoveredAndCommittedAtItsVersion() {
        long[] nonTransactional = {0, 1, 1_000, NOW_MILLIS, NOW_MILLIS + 49, 253_402_300_799_999L /* 9999-12-31 */,
            PreTransactionalCells.BOUND - 1};
        for (long version : nonTransactional) {
            assertTrue(RULE.covers(version), Long.toString(version));
            assertEquals(version, RULE.commitTimestampOf(version));
            assertTrue(RULE.refusesWriteAt(version), "a write there after the switch is refused");
        }
    }

    @Test
    void aTableCreatedTransactionalKeepsTheUsualResolution() {
        assertFalse(PreTransactionalCells.NONE.covers(NOW_MILLIS));
        assertEquals(NOT_COMMITTED, PreTransactionalCells.NONE.commitTimestampOf(NOW_MILLIS));
        assertFalse(PreTransactionalCells.NONE.refusesWriteAt(NOW_MILLIS));
        assertEquals(NOW_MILLIS, PreTransactionalCells.NONE.ttlTimeOf(NOW_MILLIS, NOW_MILLIS));
    }

    @Test
    void aPreSwitchCellIsVisibleToEveryTransactionAndOlderThanEveryTransactionalWrite() {
        long preSwitch = NOW_MILLIS;
        long commit = RULE.commitTimestampOf(preSwitch);
        // A transaction that begins one slot after the bound, and one that begins now; every level.
        for (long start : new long[] {PreTransactionalCells.BOUND, slot(NOW_MILLIS, 5)}) {
            for (VisibilityLevel level : VisibilityLevel.values()) {
                Snapshot reader = Snapshot.of(start, start, start, level);
                assertTrue(Visibility.isVisible(reader, preSwitch, commit), level + " at " + start);
                assertFalse(Visibility.isOwnWrite(reader, preSwitch));
                assertTrue(Visibility.needsCommitTimestamp(reader, preSwitch));
            }
        }
        // An update committed after the switch is the one a reader picks (newest version first) ...
        Snapshot reader = Snapshot.begin(slot(NOW_MILLIS + 10, 0));
        ColumnVersionSelector selector = new ColumnVersionSelector(reader);
        long update = slot(NOW_MILLIS + 5, 0);
        assertEquals(ColumnVersionSelector.Decision.INCLUDE_AND_NEXT_COLUMN,
                selector.offer(update, slot(NOW_MILLIS + 5, 1)));
        assertEquals(ColumnVersionSelector.Decision.NEXT_COLUMN, selector.offer(preSwitch, commit));
        // ... and a row delete committed after the switch masks the pre-switch cell.
        long delete = slot(NOW_MILLIS + 6, 0);
        assertTrue(Visibility.isMaskedByFamilyDelete(reader, delete, slot(NOW_MILLIS + 6, 1), preSwitch, commit));
        // Without a later write, the pre-switch cell is the column's value.
        selector.reset();
        assertEquals(ColumnVersionSelector.Decision.INCLUDE_AND_NEXT_COLUMN, selector.offer(preSwitch, commit));
    }

    @Test
    void aTtlIsMeasuredOnThePreSwitchCellsMillisecond() {
        assertEquals(TimestampLayout.firstSlotOfMillis(NOW_MILLIS), RULE.ttlTimeOf(NOW_MILLIS, NOW_MILLIS));
        long committed = slot(NOW_MILLIS, 3);
        assertEquals(committed, RULE.ttlTimeOf(slot(NOW_MILLIS, 2), committed), "a transactional commit is unchanged");
    }
}
