package io.phoenixtxn.snapshot;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.phoenixtxn.snapshot.FamilyGc.Status.ABORTED;
import static io.phoenixtxn.snapshot.FamilyGc.Status.COMMITTED;
import static io.phoenixtxn.snapshot.FamilyGc.Status.PENDING;
import static io.phoenixtxn.snapshot.FamilyGc.Status.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GC's verdicts per row-family, and the property that justifies them: for every reader whose start is at or
 * above the horizon, the value read from what GC keeps equals the value read from everything (checked with the
 * same rule the region server's filter applies: the highest visible version, then the newest visible family delete).
 */
class FamilyGcTest {
    private static final long H = 10_000;
    private static final int Q1 = 0;
    private static final int Q2 = 1;

    private final List<Row> rows = new ArrayList<>();
    /** The family's TTL in timestamp units for the reader model, -1 for none. */
    private long ttl = -1;

    /** A GC for a family with {@code familyTtl} (-1: none): expired below the horizon minus the TTL. */
    private FamilyGc gc(boolean major, long familyTtl) {
        ttl = familyTtl;
        return new FamilyGc(H, familyTtl < 0 ? Long.MIN_VALUE : H - familyTtl, major);
    }

    /** One added version, as the test remembers it. */
    private record Row(int index, int column, long version, FamilyGc.Status status, long commit, boolean tombstone,
                       boolean familyDelete) {
    }

    private int add(FamilyGc gc, int column, long version, FamilyGc.Status status, long commit) {
        return add(gc, column, version, status, commit, false, false);
    }

    private int add(FamilyGc gc, int column, long version, FamilyGc.Status status, long commit, boolean tombstone,
                    boolean familyDelete) {
        int i = gc.add(column, version, status, commit, tombstone, familyDelete);
        rows.add(new Row(i, column, version, status, commit, tombstone, familyDelete));
        return i;
    }

    @Test
    void aHotColumnKeepsOnlyItsNewestVersionCommittedBelowTheHorizon() {
        for (boolean major : new boolean[] {true, false}) {
            rows.clear();
            FamilyGc gc = gc(major, -1);
            int newest = -1;
            for (int v = 1; v <= 500; v++) {
                boolean aborted = v % 10 == 0; // 10% rolled back, the last one too
                int i = add(gc, Q1, v * 10L, aborted ? ABORTED : COMMITTED, v * 10L + 5);
                newest = aborted ? newest : i;
            }
            gc.decide();
            assertEquals(List.of(newest), kept(gc), "major=" + major);
            assertReadersSeeTheSame(gc);
        }
    }

    @Test
    void versionsAtOrAboveTheHorizonAndUndecidedOnesAreKept() {
        FamilyGc gc = gc(true, -1);
        add(gc, Q1, 100, COMMITTED, 200);
        int n = add(gc, Q1, 300, COMMITTED, 400);
        int committedAfter = add(gc, Q1, H - 50, COMMITTED, H + 50); // started below, committed above: kept
        int pending = add(gc, Q1, H + 100, PENDING, 0);
        int later = add(gc, Q1, H + 200, COMMITTED, H + 300);
        int aborted = add(gc, Q1, H + 400, ABORTED, 0);
        gc.decide();
        assertEquals(List.of(n, committedAfter, pending, later), kept(gc));
        assertFalse(gc.keep(aborted));
        assertReadersSeeTheSame(gc);
    }

    @Test
    void aTombstoneBelowTheHorizonGoesWithEverythingUnderItInAMajorCompactionOnly() {
        FamilyGc major = gc(true, -1);
        add(major, Q1, 100, COMMITTED, 200);
        add(major, Q1, 300, COMMITTED, 400, true, false);
        int other = add(major, Q2, 150, COMMITTED, 250);
        major.decide();
        assertEquals(List.of(other), kept(major));
        assertReadersSeeTheSame(major);

        rows.clear();
        FamilyGc minor = gc(false, -1);
        add(minor, Q1, 100, COMMITTED, 200);
        int tombstone = add(minor, Q1, 300, COMMITTED, 400, true, false);
        minor.decide();
        assertEquals(List.of(tombstone), kept(minor), "older files may hold versions it must keep hiding");
        assertReadersSeeTheSame(minor);
    }

    @Test
    void aRowDeletedBelowTheHorizonDisappearsInAMajorCompaction() {
        FamilyGc gc = gc(true, -1);
        add(gc, Q1, 100, COMMITTED, 200);
        add(gc, Q2, 120, COMMITTED, 210);
        add(gc, 2, 500, COMMITTED, 600, true, true); // row delete
        add(gc, 2, 50, COMMITTED, 60, true, true); // an older one
        gc.decide();
        assertEquals(List.of(), kept(gc));
        assertReadersSeeTheSame(gc);

        rows.clear();
        FamilyGc minor = gc(false, -1);
        int q1 = add(minor, Q1, 100, COMMITTED, 200);
        int delete = add(minor, 2, 500, COMMITTED, 600, true, true);
        add(minor, 2, 50, COMMITTED, 60, true, true);
        minor.decide();
        assertEquals(List.of(q1, delete), kept(minor), "the delete in force stays, the superseded one goes");
        assertReadersSeeTheSame(minor);
    }

    @Test
    void writesAfterARowDeleteSurviveIt() {
        FamilyGc gc = gc(true, -1);
        add(gc, Q1, 100, COMMITTED, 200);
        add(gc, 2, 500, COMMITTED, 600, true, true);
        int reinsertedInTheSameTransaction = add(gc, Q2, 501, COMMITTED, 600);
        int writtenLater = add(gc, Q1, 700, COMMITTED, 800);
        gc.decide();
        assertEquals(List.of(reinsertedInTheSameTransaction, writtenLater), kept(gc));
        assertReadersSeeTheSame(gc);
    }

    @Test
    void aRowDeleteAboveTheHorizonIsKeptAndSoIsWhatItMayStillHide() {
        FamilyGc gc = gc(true, -1);
        int n = add(gc, Q1, 100, COMMITTED, 200);
        int delete = add(gc, 2, H + 5, COMMITTED, H + 10, true, true);
        gc.decide();
        assertEquals(List.of(n, delete), kept(gc), "a reader between the horizon and the delete reads the value");
        assertReadersSeeTheSame(gc);
    }

    @Test
    void aFamilyWithAnUnresolvedVersionIsKeptWhole() {
        for (FamilyGc.Status doubt : new FamilyGc.Status[] {UNKNOWN, PENDING}) {
            rows.clear();
            FamilyGc gc = gc(true, -1);
            add(gc, Q1, 100, COMMITTED, 200);
            add(gc, Q1, 300, ABORTED, 0);
            add(gc, Q2, 400, doubt, 0); // below the horizon and still undecided: cannot happen safely
            add(gc, Q1, 500, COMMITTED, 600);
            gc.decide();
            assertEquals(4, kept(gc).size(), doubt.name());
        }
    }

    @Test
    void expiredValuesGoInAMajorCompaction() {
        FamilyGc gc = gc(true, H - 1_000);
        add(gc, Q1, 100, COMMITTED, 200);
        add(gc, Q1, 300, COMMITTED, 400); // newest, but expired
        int fresh = add(gc, Q2, 1_500, COMMITTED, 1_600);
        add(gc, Q2, 200, COMMITTED, 300);
        gc.decide();
        assertEquals(List.of(fresh), kept(gc));
        assertThrows(IllegalArgumentException.class, () -> new FamilyGc(H, H + 1, true));
    }

    /** Conflict-free writers (immutable rows, index rows) can commit out of version order. */
    @Test
    void commitOrderDifferentFromVersionOrderReadsTheSame() {
        FamilyGc gc = gc(true, -1);
        add(gc, Q1, 100, COMMITTED, 900); // lower version, committed last
        add(gc, Q1, 200, COMMITTED, 300); // the version readers pick; masked by the delete
        add(gc, 2, 400, COMMITTED, 500, true, true);
        gc.decide();
        assertReadersSeeTheSame(gc);
    }

    @Test
    void randomHistoriesReadTheSameForEveryReaderAtOrAboveTheHorizon() {
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 2_000; round++) {
            rows.clear();
            boolean major = random.nextBoolean();
            FamilyGc gc = gc(major, random.nextInt(4) == 0 ? 1 + random.nextInt((int) H) : -1);
            int n = 1 + random.nextInt(12);
            long version = 0;
            for (int i = 0; i < n; i++) {
                version += 1 + random.nextInt(3_000);
                boolean familyDelete = random.nextInt(6) == 0;
                int column = familyDelete ? 3 : random.nextInt(3);
                FamilyGc.Status status;
                long commit = 0;
                int kind = random.nextInt(10);
                if (kind < 7) {
                    status = COMMITTED;
                    commit = version + 1 + random.nextInt(random.nextBoolean() ? 5 : 4_000);
                } else if (kind < 9) {
                    status = ABORTED;
                } else {
                    status = version >= H ? PENDING : ABORTED;
                }
                add(gc, column, version, status, commit, !familyDelete && random.nextInt(5) == 0, familyDelete);
            }
            gc.decide();
            assertReadersSeeTheSame(gc);
        }
    }

    // ---- a reader, as the region server's filter reads: highest visible version, then the family delete

    private void assertReadersSeeTheSame(FamilyGc gc) {
        long maxCommit = rows.stream().mapToLong(Row::commit).max().orElse(0);
        for (long start = H; start <= Math.max(H, maxCommit) + 1; start += Math.max(1, (maxCommit - H) / 50 + 1)) {
            for (int column = 0; column < 3; column++) {
                String all = read(column, start, false, gc);
                String kept = read(column, start, true, gc);
                assertEquals(all, kept, "column " + column + " read at " + start + " from " + rows + " kept "
                        + kept(gc));
            }
        }
    }

    private String read(int column, long start, boolean onlyKept, FamilyGc gc) {
        Row picked = null;
        Row familyDelete = null;
        for (Row r : rows) {
            if (onlyKept && !gc.keep(r.index())) {
                continue;
            }
            boolean visible = r.status() == COMMITTED && r.commit() < start;
            if (!visible) {
                continue;
            }
            if (r.familyDelete()) {
                if (familyDelete == null || r.commit() > familyDelete.commit()
                        || (r.commit() == familyDelete.commit() && r.version() > familyDelete.version())) {
                    familyDelete = r;
                }
            } else if (r.column() == column && (picked == null || r.version() > picked.version())) {
                picked = r;
            }
        }
        if (picked == null || picked.tombstone()) {
            return "none";
        }
        long expiredBelow = ttl < 0 ? Long.MIN_VALUE : start - ttl;
        if (familyDelete != null && (picked.commit() < familyDelete.commit()
                || (picked.commit() == familyDelete.commit() && picked.version() <= familyDelete.version()))) {
            return "none";
        }
        if (picked.commit() < expiredBelow) {
            return "none";
        }
        return "v" + picked.version();
    }

    private List<Integer> kept(FamilyGc gc) {
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < gc.size(); i++) {
            if (gc.keep(i)) {
                kept.add(i);
            }
        }
        return kept;
    }

    @Test
    void columnIdsAreDense() {
        assertThrows(IllegalArgumentException.class, () -> new FamilyGc(H, Long.MIN_VALUE, true)
                .add(-1, 1, COMMITTED, 2, false, false));
        assertTrue(new FamilyGc(H, Long.MIN_VALUE, true).size() == 0);
    }
}
