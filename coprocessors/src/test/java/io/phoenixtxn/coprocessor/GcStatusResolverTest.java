package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.snapshot.FamilyGc;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How GC resolves a version without a commit cell in its input, step by step (see {@link GcStatusResolver}). */
class GcStatusResolverTest {
    private static final byte[] ROW = {1};
    private static final byte[] F = {'f'};
    private static final byte[] Q = {'q'};
    private static final long GC = TimestampLayout.firstSlotOfMillis(10_000);
    private static final long SAFE = TimestampLayout.firstSlotOfMillis(5_000);
    /** Below the commit-point horizon. */
    private static final long OLD = TimestampLayout.firstSlotOfMillis(1_000);
    /** Between the commit-point horizon and the GC horizon: may still write its commit point. */
    private static final long MIDDLE = TimestampLayout.firstSlotOfMillis(7_000);
    private static final long NEW = TimestampLayout.firstSlotOfMillis(20_000);

    private final FakeCommitTable table = new FakeCommitTable();
    /** Commit cells of the region, by version. */
    private final Map<Long, Long> regionCells = new HashMap<>();
    private int regionReads;
    private boolean regionFails;
    private final CommitCellReader reader = (row, family, qualifier, version) -> {
        regionReads++;
        if (regionFails) {
            throw new IOException("region closing (test)");
        }
        return regionCells.getOrDefault(version, Visibility.NOT_COMMITTED);
    };
    private final GcStatusResolver resolver = new GcStatusResolver(new Horizon(GC, SAFE), table, reader, "test");

    private GcStatusResolver.Resolved resolve(long version) {
        return resolver.resolve(ROW, F, Q, version);
    }

    @Test
    void aVersionAtOrAboveTheHorizonIsPendingWithoutAnyLookUp() {
        assertEquals(FamilyGc.Status.PENDING, resolve(NEW).status());
        assertEquals(FamilyGc.Status.PENDING, resolve(GC).status());
        assertEquals(0, regionReads + table.lookups + table.invalidations);
    }

    @Test
    void theRegionsCommitCellDecidesAndIsRememberedForTheWriter() {
        regionCells.put(OLD + 3, OLD + 500);
        assertEquals(GcStatusResolver.Resolved.committed(OLD + 500), resolve(OLD + 3));
        assertEquals(GcStatusResolver.Resolved.committed(OLD + 500), resolve(OLD + 1), "another checkpoint");
        assertEquals(1, regionReads);
        assertEquals(0, table.lookups);
    }

    @Test
    void aCommitCellOfTheInputIsRememberedForTheWriter() {
        resolver.learnCommitted(OLD, OLD + 700);
        assertEquals(GcStatusResolver.Resolved.committed(OLD + 700), resolve(OLD + 2));
        assertEquals(0, regionReads);
    }

    @Test
    void aCommitValueInTheCommitTableDecides() throws IOException {
        table.tryCommit(MIDDLE, MIDDLE + 900, null);
        assertEquals(GcStatusResolver.Resolved.committed(MIDDLE + 900), resolve(MIDDLE));
    }

    @Test
    void anInvalidMarkerMeansAbortedUnlessTheCommitCellAppearedMeanwhile() throws IOException {
        table.tryInvalidate(OLD);
        GcStatusResolver.Resolved r = resolve(OLD);
        assertEquals(FamilyGc.Status.ABORTED, r.status());
        assertTrue(r.invalidated(), "its marker may go once its cells are gone");

        // A stray marker: the writer committed and cleaned up (commit cells written) before a reader's marker landed.
        table.tryInvalidate(MIDDLE);
        regionCells.put(MIDDLE, MIDDLE + 100);
        CommitCellReader appearsOnSecondLook = new CommitCellReader() {
            private int reads;

            @Override
            public long read(byte[] row, byte[] family, byte[] qualifier, long version) {
                return ++reads == 1 ? Visibility.NOT_COMMITTED : MIDDLE + 100;
            }
        };
        GcStatusResolver fresh = new GcStatusResolver(new Horizon(GC, SAFE), table, appearsOnSecondLook, "test");
        assertEquals(GcStatusResolver.Resolved.committed(MIDDLE + 100), fresh.resolve(ROW, F, Q, MIDDLE));
    }

    @Test
    void anAbsentWriterBelowTheCommitPointHorizonIsAbortedWithoutAMarker() {
        GcStatusResolver.Resolved r = resolve(OLD);
        assertEquals(FamilyGc.Status.ABORTED, r.status());
        assertFalse(r.invalidated());
        assertEquals(0, table.invalidations, "no force-abort: it can never commit");
        assertEquals(CommitTable.Entry.ABSENT, table.entry(OLD));
    }

    @Test
    void anAbsentWriterBelowTheCommitPointHorizonWhoseCommitCellAppearsIsCommitted() {
        // Committed long ago; its post-commit wrote the cell and deleted the entry between GC's two looks.
        CommitCellReader appearsOnSecondLook = new CommitCellReader() {
            private int reads;

            @Override
            public long read(byte[] row, byte[] family, byte[] qualifier, long version) {
                return ++reads == 1 ? Visibility.NOT_COMMITTED : OLD + 100;
            }
        };
        GcStatusResolver fresh = new GcStatusResolver(new Horizon(GC, SAFE), table, appearsOnSecondLook, "test");
        assertEquals(GcStatusResolver.Resolved.committed(OLD + 100), fresh.resolve(ROW, F, Q, OLD));
    }

    @Test
    void anAbsentWriterThatMayStillCommitIsForceAborted() {
        GcStatusResolver.Resolved r = resolve(MIDDLE);
        assertEquals(FamilyGc.Status.ABORTED, r.status());
        assertTrue(r.invalidated());
        assertEquals(CommitTable.Entry.INVALIDATED, table.entry(MIDDLE), "it can no longer commit");
    }

    @Test
    void aWriterThatCommittedAndCleanedUpBeforeTheMarkerLandedWinsAndTheStrayMarkerGoes() {
        table.beforeInvalidate = () -> regionCells.put(MIDDLE, MIDDLE + 50); // post-commit done, entry deleted
        assertEquals(GcStatusResolver.Resolved.committed(MIDDLE + 50), resolve(MIDDLE));
        assertEquals(CommitTable.Entry.ABSENT, table.entry(MIDDLE), "the stray marker was deleted");
        assertEquals(1, table.deletes);
    }

    @Test
    void aWriterWhoseCommitPointLandsFirstIsCommitted() {
        table.beforeInvalidate = () -> {
            try {
                table.tryCommit(MIDDLE, MIDDLE + 60, null);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
        assertEquals(GcStatusResolver.Resolved.committed(MIDDLE + 60), resolve(MIDDLE));
    }

    @Test
    void anUnreachableCommitTableMakesEveryUnresolvedVersionUnknownAfterOneFailure() {
        table.unreachable = true;
        assertEquals(FamilyGc.Status.UNKNOWN, resolve(OLD).status());
        assertEquals(FamilyGc.Status.UNKNOWN, resolve(MIDDLE).status());
        assertTrue(resolver.commitTableFailed());
        assertEquals(0, table.lookups, "the table was tried once (and failed), then left alone");
        regionCells.put(MIDDLE + TimestampLayout.SLOT_WIDTH, MIDDLE + 2_000);
        assertEquals(FamilyGc.Status.COMMITTED, resolve(MIDDLE + TimestampLayout.SLOT_WIDTH).status(),
                "a commit cell in the region still decides");
    }

    @Test
    void aRegionReadFailureLeavesThatVersionUnknownWithoutBlamingTheCommitTable() {
        regionFails = true;
        assertEquals(FamilyGc.Status.UNKNOWN, resolve(OLD).status());
        assertFalse(resolver.commitTableFailed());
    }

    @Test
    void fastPathVersionsWithoutACommitAreAbortedAndNeverCachedByWriter() throws IOException {
        long fastPath = OLD + TimestampLayout.FAST_PATH_FIRST_OFFSET;
        assertTrue(TimestampLayout.isFastPathVersion(fastPath));
        assertEquals(FamilyGc.Status.ABORTED, resolve(fastPath).status());
        assertEquals(0, table.invalidations);
        regionCells.put(fastPath + 1, fastPath + 1);
        assertEquals(GcStatusResolver.Resolved.committed(fastPath + 1), resolve(fastPath + 1),
                "another fast-path version of the same slot has its own commit");
    }

    @Test
    void anUnknownHorizonIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new GcStatusResolver(Horizon.UNKNOWN, table, reader, "t"));
    }
}
