package io.phoenixtxn.snapshot;

import static io.phoenixtxn.snapshot.ColumnVersionSelector.Decision.INCLUDE;
import static io.phoenixtxn.snapshot.ColumnVersionSelector.Decision.INCLUDE_AND_NEXT_COLUMN;
import static io.phoenixtxn.snapshot.ColumnVersionSelector.Decision.NEXT_COLUMN;
import static io.phoenixtxn.snapshot.ColumnVersionSelector.Decision.SKIP;
import static io.phoenixtxn.snapshot.Visibility.NOT_COMMITTED;
import static io.phoenixtxn.snapshot.VisibilityTest.A;
import static io.phoenixtxn.snapshot.VisibilityTest.A_COMMIT;
import static io.phoenixtxn.snapshot.VisibilityTest.B;
import static io.phoenixtxn.snapshot.VisibilityTest.B_COMMIT;
import static io.phoenixtxn.snapshot.VisibilityTest.C;
import static io.phoenixtxn.snapshot.VisibilityTest.C_COMMIT;
import static io.phoenixtxn.snapshot.VisibilityTest.D;
import static io.phoenixtxn.snapshot.VisibilityTest.R;
import static io.phoenixtxn.snapshot.VisibilityTest.slot;
import static io.phoenixtxn.snapshot.VisibilityTest.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.phoenixtxn.snapshot.ColumnVersionSelector.Decision;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ColumnVersionSelectorTest {

    /** One version of a column: its HBase timestamp and its writer's commit timestamp. */
    record Cell(long version, long commitTs) {
    }

    /**
     * A column as HBase returns it (newest version first): a later transaction's pending write, a fast-path version
     * issued in the reader's slot after it started, own writes at checkpoints 3..0, an aborted write, a commit
     * after the reader's start, two versions committed before the start, a fast-path version long before the start
     * and an old committed version.
     */
    static List<Cell> column() {
        List<Cell> cells = List.of(
                new Cell(C + 2, NOT_COMMITTED),        // 0
                new Cell(R + 400, R + 400),            // 1
                new Cell(R + 3, NOT_COMMITTED),        // 2
                new Cell(R + 2, NOT_COMMITTED),        // 3
                new Cell(R + 1, NOT_COMMITTED),        // 4
                new Cell(R, NOT_COMMITTED),            // 5
                new Cell(D + 1, NOT_COMMITTED),        // 6
                new Cell(B, B_COMMIT),                 // 7
                new Cell(A + 4, A_COMMIT),             // 8
                new Cell(A, A_COMMIT),                 // 9
                new Cell(slot(5) + 60, slot(5) + 60),  // 10
                new Cell(slot(2), slot(3)));           // 11
        List<Cell> sorted = new ArrayList<>(cells);
        sorted.sort(Comparator.comparingLong(Cell::version).reversed());
        assertEquals(sorted, cells, "test column must be newest first");
        return cells;
    }

    static List<Decision> run(ColumnVersionSelector selector, List<Cell> cells) {
        selector.reset();
        List<Decision> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(selector.offer(c.version(), c.commitTs()));
        }
        return out;
    }

    static List<Cell> returned(List<Cell> cells, List<Decision> decisions) {
        List<Cell> out = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            if (decisions.get(i) == INCLUDE || decisions.get(i) == INCLUDE_AND_NEXT_COLUMN) {
                out.add(cells.get(i));
            }
        }
        return out;
    }

    @Test
    void snapshotReturnsTheNewestVisibleOwnWrite() {
        List<Cell> cells = column();
        ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 2, VisibilityLevel.SNAPSHOT));
        List<Decision> d = run(sel, cells);
        // C+2 skip, fast path after start skip, R+3 skip (after the write pointer), R+2 include, rest next column.
        assertEquals(List.of(new Cell(R + 2, NOT_COMMITTED)), returned(cells, d));
        assertEquals(List.of(SKIP, SKIP, SKIP, INCLUDE_AND_NEXT_COLUMN), d.subList(0, 4));
        for (int i = 4; i < d.size(); i++) {
            assertEquals(NEXT_COLUMN, d.get(i), "index " + i);
        }
    }

    @Test
    void snapshotExcludeCurrentSkipsTheCurrentStatement() {
        List<Cell> cells = column();
        ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 2, VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT));
        assertEquals(List.of(new Cell(R + 1, NOT_COMMITTED)), returned(cells, run(sel, cells)));
        // At checkpoint 0 with SNAPSHOT_EXCLUDE_CURRENT no own write is visible: the newest committed one is.
        ColumnVersionSelector first = new ColumnVersionSelector(
                Snapshot.begin(R).withLevel(VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT));
        assertEquals(List.of(new Cell(A + 4, A_COMMIT)), returned(cells, run(first, cells)));
    }

    @Test
    void snapshotAllReturnsEveryOwnVersionAndTheNewestCommittedSnapshotVersion() {
        List<Cell> cells = column();
        ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 2, VisibilityLevel.SNAPSHOT_ALL));
        List<Decision> d = run(sel, cells);
        assertEquals(List.of(new Cell(R + 2, NOT_COMMITTED), new Cell(R + 1, NOT_COMMITTED), new Cell(R, NOT_COMMITTED),
                new Cell(A + 4, A_COMMIT)), returned(cells, d));
        assertEquals(List.of(SKIP, SKIP, SKIP, INCLUDE, INCLUDE, INCLUDE, SKIP, SKIP, INCLUDE_AND_NEXT_COLUMN,
                NEXT_COLUMN, NEXT_COLUMN, NEXT_COLUMN), d);
    }

    @Test
    void snapshotAllWithoutACommittedVersionReturnsOnlyOwnVersions() {
        List<Cell> cells = List.of(new Cell(R + 1, NOT_COMMITTED), new Cell(R, NOT_COMMITTED),
                new Cell(B, B_COMMIT), new Cell(D, NOT_COMMITTED));
        ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 1, VisibilityLevel.SNAPSHOT_ALL));
        assertEquals(List.of(INCLUDE, INCLUDE, SKIP, SKIP), run(sel, cells));
    }

    @Test
    void snapshotAllWithoutOwnVersionsReturnsTheNewestCommittedVersion() {
        List<Cell> cells = List.of(new Cell(B + 1, B_COMMIT), new Cell(A + 1, A_COMMIT), new Cell(A, A_COMMIT));
        ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 5, VisibilityLevel.SNAPSHOT_ALL));
        assertEquals(List.of(SKIP, INCLUDE_AND_NEXT_COLUMN, NEXT_COLUMN), run(sel, cells));
    }

    @Test
    void committedVersionsAtEveryLevelWhenTheReaderWroteNothing() {
        List<Cell> cells = List.of(new Cell(C, C_COMMIT), new Cell(B, B_COMMIT), new Cell(D, NOT_COMMITTED),
                new Cell(A, A_COMMIT), new Cell(slot(5) + 60, slot(5) + 60));
        for (VisibilityLevel level : VisibilityLevel.values()) {
            ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 0, level));
            assertEquals(List.of(SKIP, SKIP, SKIP, INCLUDE_AND_NEXT_COLUMN, NEXT_COLUMN), run(sel, cells), level.name());
        }
    }

    @Test
    void fastPathVersionIsReturnedWhenItIsTheNewestCommittedOne() {
        long fp = slot(99) + 300;
        List<Cell> cells = List.of(new Cell(R + 500, R + 500), new Cell(fp, fp), new Cell(A, A_COMMIT));
        for (VisibilityLevel level : VisibilityLevel.values()) {
            ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 0, level));
            assertEquals(List.of(SKIP, INCLUDE_AND_NEXT_COLUMN, NEXT_COLUMN), run(sel, cells), level.name());
        }
    }

    @Test
    void resetStartsANewColumn() {
        ColumnVersionSelector sel = new ColumnVersionSelector(snapshot(R, 0, VisibilityLevel.SNAPSHOT));
        assertEquals(INCLUDE_AND_NEXT_COLUMN, sel.offer(A, A_COMMIT));
        assertEquals(NEXT_COLUMN, sel.offer(A - 1, A_COMMIT));
        assertEquals(NEXT_COLUMN, sel.offer(R, NOT_COMMITTED), "done until reset, even for an own write");
        sel.reset();
        assertEquals(INCLUDE_AND_NEXT_COLUMN, sel.offer(R, NOT_COMMITTED));
        sel.reset();
        assertEquals(SKIP, sel.offer(B, B_COMMIT));
        assertEquals(INCLUDE_AND_NEXT_COLUMN, sel.offer(A, A_COMMIT));
    }

    /** Random columns against the documented contract of the selector. */
    @Test
    void randomColumnsFollowTheContract() {
        Random random = new Random(7);
        for (int round = 0; round < 5_000; round++) {
            VisibilityLevel level = VisibilityLevel.values()[random.nextInt(3)];
            int wp = random.nextInt(TimestampLayout.MAX_CHECKPOINTS + 1);
            Snapshot s = snapshot(R, wp, level);
            List<Cell> cells = new ArrayList<>();
            int n = 1 + random.nextInt(12);
            Set<Long> versions = new HashSet<>();
            for (int i = 0; i < n; i++) {
                Cell c = randomCell(random);
                if (versions.add(c.version())) {
                    cells.add(c);
                }
            }
            cells.sort(Comparator.comparingLong(Cell::version).reversed());
            List<Decision> d = run(new ColumnVersionSelector(s), cells);

            // Reference: visible cells; SNAPSHOT_ALL keeps visible own ones and the first visible other one.
            List<Cell> expected = new ArrayList<>();
            for (Cell c : cells) {
                boolean own = !TimestampLayout.isFastPathVersion(c.version()) && c.version() >= R
                        && c.version() < R + TimestampLayout.CHECKPOINT_GRID;
                boolean visible = own ? VisibilityTest.ownVisible(level, (int) (c.version() - R), wp)
                        : c.commitTs() != NOT_COMMITTED && c.commitTs() < R;
                if (!visible) {
                    continue;
                }
                expected.add(c);
                if (!(own && level == VisibilityLevel.SNAPSHOT_ALL)) {
                    break;
                }
            }
            assertEquals(expected, returned(cells, d), () -> level + " wp=" + wp + " " + cells + " -> " + d);
            // Once a column is done, every later version is NEXT_COLUMN and nothing is INCLUDEd after it.
            int doneAt = d.indexOf(INCLUDE_AND_NEXT_COLUMN);
            for (int i = 0; i < d.size(); i++) {
                if (doneAt >= 0 && i > doneAt) {
                    assertEquals(NEXT_COLUMN, d.get(i));
                } else {
                    assertNotEquals(NEXT_COLUMN, d.get(i), "NEXT_COLUMN before the column was done");
                }
            }
        }
    }

    /**
     * {@code endsColumn} is {@code offer}'s rule without its state: a version ends the column exactly when a fresh
     * selector would answer INCLUDE_AND_NEXT_COLUMN for it, and a version whose commit timestamp is not needed
     * ({@link Visibility#needsCommitTimestamp}) is decided the same whatever that commit timestamp is (any commit
     * comes at or after the version it commits).
     */
    @Test
    void endsColumnAndNeedsCommitTimestampAgreeWithOffer() {
        Random random = new Random(11);
        for (int round = 0; round < 20_000; round++) {
            VisibilityLevel level = VisibilityLevel.values()[random.nextInt(3)];
            Snapshot s = snapshot(R, random.nextInt(TimestampLayout.MAX_CHECKPOINTS + 1), level);
            Cell c = randomCell(random);
            ColumnVersionSelector fresh = new ColumnVersionSelector(s);
            assertEquals(fresh.offer(c.version(), c.commitTs()) == INCLUDE_AND_NEXT_COLUMN,
                    new ColumnVersionSelector(s).endsColumn(c.version(), c.commitTs()), () -> s + " " + c);
            if (!Visibility.needsCommitTimestamp(s, c.version())) {
                for (long other : new long[] {NOT_COMMITTED, c.version(), c.version() + 1,
                        c.version() + TimestampLayout.SLOT_WIDTH, slot(10_000)}) {
                    assertEquals(Visibility.isVisible(s, c.version(), c.commitTs()),
                            Visibility.isVisible(s, c.version(), other), () -> s + " " + c + " as if committed at "
                                    + other);
                }
            }
        }
    }

    @Test
    void commitTimestampsAreNeededOnlyForOtherWritersBelowTheStart() {
        Snapshot s = snapshot(R, 3, VisibilityLevel.SNAPSHOT);
        assertEquals(false, Visibility.needsCommitTimestamp(s, R), "own write");
        assertEquals(false, Visibility.needsCommitTimestamp(s, R + 7), "own slot above the write pointer");
        assertEquals(false, Visibility.needsCommitTimestamp(s, R + 400), "fast-path version after the start");
        assertEquals(false, Visibility.needsCommitTimestamp(s, C), "a writer that started after the reader");
        assertEquals(true, Visibility.needsCommitTimestamp(s, A), "an older writer");
        assertEquals(true, Visibility.needsCommitTimestamp(s, slot(99) + 300), "fast-path version before the start");
    }

    private static Cell randomCell(Random random) {
        switch (random.nextInt(4)) {
            case 0: { // own write at some checkpoint
                return new Cell(R + random.nextInt(TimestampLayout.MAX_CHECKPOINTS + 1), NOT_COMMITTED);
            }
            case 1: { // fast-path version somewhere around the reader
                long slotStart = slot(90 + random.nextInt(20));
                long v = slotStart + TimestampLayout.FAST_PATH_FIRST_OFFSET
                        + random.nextInt((int) (TimestampLayout.FAST_PATH_LAST_OFFSET - TimestampLayout.FAST_PATH_FIRST_OFFSET));
                return new Cell(v, v);
            }
            default: { // another transaction: committed before R, after R, or not at all
                long writer = slot(random.nextInt(200));
                if (writer == R) {
                    writer = slot(100 + 1 + random.nextInt(50));
                }
                long version = writer + random.nextInt(TimestampLayout.MAX_CHECKPOINTS + 1);
                int fate = random.nextInt(3);
                long commit = fate == 0 ? NOT_COMMITTED
                        : writer + TimestampLayout.SLOT_WIDTH * (1 + random.nextInt(fate == 1 ? 5 : 200));
                return new Cell(version, commit);
            }
        }
    }
}
