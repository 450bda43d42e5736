package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.PendingStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CommitResolver}, step by step (commit cell, commit table, the TM's pending status, the wait, the
 * force-abort) and both sides of the force-abort race, on an in-memory commit table, a scripted TM and a commit-cell
 * reader the test controls. Races are forced through {@link ProtocolHooks#beforeInvalidate} and a commit table that
 * lets the writer act between the reader's calls, never by timing.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CommitResolverTest {
    private static final byte[] ROW = {'r'};
    private static final byte[] FAMILY = {'f'};
    private static final byte[] QUALIFIER = {'q'};
    private static final long WRITER = TimestampLayout.firstSlotOfMillis(1_000);
    private static final long WRITER_COMMIT = TimestampLayout.firstSlotOfMillis(1_001);
    private static final long READER = TimestampLayout.firstSlotOfMillis(2_000);
    /** Long enough that a test which reaches the force-abort did so because the writer never showed up. */
    private static final long LONG_WAIT_MS = 20_000;

    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();
    private final CommitCells commitCells = new CommitCells();

    @AfterEach
    void uninstallHooks() {
        ProtocolHooks.install(null);
    }

    // ---- step 1: the commit cell --------------------------------------------------------------------------------

    @Test
    void aCommitCellDecidesWithoutTheCommitTableOrTheTm() throws IOException {
        commitCells.write(WRITER + 2, WRITER_COMMIT); // a checkpoint version's own commit cell
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        assertEquals(WRITER_COMMIT, resolve(resolver(0, tm), WRITER + 2));
        assertEquals(0, commitTable.lookups());
        assertEquals(List.of(), tm.asked());
    }

    // ---- step 2: the commit table -------------------------------------------------------------------------------

    @Test
    void aCommittedEntryDecidesAndTheReaderOffersToHeal() throws IOException {
        commitTable.tryCommit(WRITER, WRITER_COMMIT);
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        assertEquals(WRITER_COMMIT, resolve(resolver(LONG_WAIT_MS, tm), WRITER + 1));
        assertEquals(List.of("heal " + (WRITER + 1) + "@" + WRITER_COMMIT), commitCells.heals);
        assertEquals(List.of(), tm.asked(), "an entry decides; the TM is not asked");
    }

    @Test
    void anInvalidatedWriterIsNotCommittedAndNotInvalidatedAgain() throws IOException {
        commitTable.tryInvalidate(WRITER);
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        AtomicInteger invalidations = countInvalidations();
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(LONG_WAIT_MS, tm), WRITER));
        assertEquals(0, invalidations.get());
        assertEquals(List.of(), tm.asked());
    }

    /**
     * Found by review of the GC work: the writer committed and finished its post-commit (commit cells, then the entry
     * deleted) after our first look at its commit cell, and another reader's force-abort left a stray marker before
     * removing it. The marker alone must not make a committed writer invisible: its commit cell is there.
     */
    @Test
    void anInvalidMarkerOverAWriterThatCommittedSinceOurFirstLookDoesNotHideItsCommit() throws IOException {
        commitTable.tryInvalidate(WRITER); // the other reader's stray marker
        commitCells.writeOnRead(2, WRITER, WRITER_COMMIT); // absent at our first look, written before the entry went
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        assertEquals(WRITER_COMMIT, resolve(resolver(LONG_WAIT_MS, tm), WRITER));
    }

    // ---- step 3: the TM's pending status ------------------------------------------------------------------------

    @Test
    void aWriterTheTmHasNotDecidedIsInvisibleAndLeftAlone() throws IOException {
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.notDecided());
        AtomicInteger invalidations = countInvalidations();
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(LONG_WAIT_MS, tm), WRITER));
        assertEquals(List.of(WRITER), tm.asked());
        assertEquals(0, invalidations.get());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state());
    }

    @Test
    void aWriterDecidedAfterTheReaderStartedIsInvisibleAndLeftAlone() throws IOException {
        long lateCommit = READER + TimestampLayout.SLOT_WIDTH;
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.decided(lateCommit));
        AtomicInteger invalidations = countInvalidations();
        long commitTs = resolve(resolver(LONG_WAIT_MS, tm), WRITER);
        assertEquals(lateCommit, commitTs);
        assertTrue(commitTs >= READER, "at or above the reader's start: invisible to it");
        assertEquals(0, invalidations.get());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state());
    }

    // ---- step 3: the wait ---------------------------------------------------------------------------------------

    @Test
    void aWriterDecidedBelowTheReadersStartIsWaitedForUntilItsCommitPoint() throws IOException {
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.decided(WRITER_COMMIT));
        AtomicInteger invalidations = countInvalidations();
        // The writer's commit point lands after the reader's first look-up (while it waits).
        CommitTable writerLandsOnSecondLookup = new ForwardingCommitTable(commitTable) {
            private int lookups;

            @Override
            public Entry lookup(long txId) throws IOException {
                if (++lookups == 2) {
                    commitTable.tryCommit(WRITER, WRITER_COMMIT);
                }
                return super.lookup(txId);
            }
        };
        CommitResolver resolver = new CommitResolver(writerLandsOnSecondLookup, LONG_WAIT_MS, tm::tm);
        assertEquals(WRITER_COMMIT, resolve(resolver, WRITER));
        assertEquals(0, invalidations.get(), "the writer made it: nothing to abort");
        assertEquals(List.of("heal " + WRITER + "@" + WRITER_COMMIT), commitCells.heals);
    }

    @Test
    void aCommitCellWrittenDuringTheWaitIsUsed() throws IOException {
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        AtomicInteger invalidations = countInvalidations();
        commitCells.writeOnRead(2, WRITER, WRITER_COMMIT); // the writer committed and cleaned up meanwhile
        assertEquals(WRITER_COMMIT, resolve(resolver(LONG_WAIT_MS, tm), WRITER));
        assertEquals(0, invalidations.get());
    }

    // ---- step 4: the force-abort --------------------------------------------------------------------------------

    @Test
    void aWriterTheTmCannotSpeakForIsForceAbortedAfterTheWait() throws IOException {
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        List<Long> invalidated = new ArrayList<>();
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void beforeInvalidate(long writerTxId) {
                invalidated.add(writerTxId);
            }
        });
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(0, tm), WRITER + 3));
        assertEquals(List.of(WRITER), invalidated, "the writer's transaction id, not the checkpoint version");
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(WRITER).state());
    }

    /** What readers did is counted for the region server's metrics (process-wide counters: deltas). */
    @Test
    void statusQueriesWaitsAndForceAbortsAreCounted() throws IOException {
        long resolved = ResolutionCounters.pendingVersionsResolved();
        long queries = ResolutionCounters.statusQueries();
        long unknown = ResolutionCounters.statusUnknown();
        long waits = ResolutionCounters.waits();
        long aborts = ResolutionCounters.forceAborts();

        // A writer the TM has not decided: resolved by one question, no wait, left alone.
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(LONG_WAIT_MS,
                ScriptedTm.answering(txId -> PendingStatus.notDecided())), WRITER));
        assertEquals(resolved + 1, ResolutionCounters.pendingVersionsResolved());
        assertEquals(queries + 1, ResolutionCounters.statusQueries());
        assertEquals(unknown, ResolutionCounters.statusUnknown());
        assertEquals(waits, ResolutionCounters.waits());
        assertEquals(aborts, ResolutionCounters.forceAborts());

        // A writer the TM cannot speak for: the reader waits (1 ms), then force-aborts it.
        long other = WRITER + TimestampLayout.SLOT_WIDTH;
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(1,
                ScriptedTm.answering(txId -> PendingStatus.unknown())), other));
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(other).state());
        assertEquals(resolved + 2, ResolutionCounters.pendingVersionsResolved());
        assertEquals(queries + 2, ResolutionCounters.statusQueries());
        assertEquals(unknown + 1, ResolutionCounters.statusUnknown());
        assertEquals(waits + 1, ResolutionCounters.waits());
        assertEquals(aborts + 1, ResolutionCounters.forceAborts());
    }

    @Test
    void anUnreachableTmOrNoneAtAllCountsAsUnknown() throws IOException {
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(0, ScriptedTm.unreachable()), WRITER));
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(WRITER).state());

        long other = WRITER + TimestampLayout.SLOT_WIDTH;
        assertEquals(Visibility.NOT_COMMITTED, new CommitResolver(commitTable, 0, () -> null)
                .resolve(ROW, FAMILY, QUALIFIER, other, READER, commitCells));
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(other).state());
    }

    @Test
    void forceAbortRaceTheWriterCommitsFirst() throws IOException {
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void beforeInvalidate(long writerTxId) {
                commitTable.tryCommit(writerTxId, WRITER_COMMIT, null); // its commit point lands just before our marker
            }
        });
        assertEquals(WRITER_COMMIT, resolve(resolver(0, ScriptedTm.answering(txId -> PendingStatus.unknown())),
                WRITER));
        assertEquals(CommitTable.Entry.State.COMMITTED, commitTable.lookup(WRITER).state(), "our marker lost");
        assertEquals(List.of("heal " + WRITER + "@" + WRITER_COMMIT), commitCells.heals);
    }

    @Test
    void forceAbortRaceTheWriterCommitsAndCleansUpBetweenOurMarkerAndOurLookUp() throws IOException {
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void beforeInvalidate(long writerTxId) {
                commitTable.tryCommit(writerTxId, WRITER_COMMIT, null);
            }
        });
        // Our marker fails against the commit; before we look again the writer writes its commit cell and deletes its
        // entry (its post-commit).
        CommitTable cleansUpAfterOurMarker = new ForwardingCommitTable(commitTable) {
            @Override
            public boolean tryInvalidate(long txId) throws IOException {
                boolean invalidated = super.tryInvalidate(txId);
                commitCells.write(WRITER, WRITER_COMMIT);
                commitTable.delete(txId);
                return invalidated;
            }
        };
        CommitResolver resolver = new CommitResolver(cleansUpAfterOurMarker, 0,
                ScriptedTm.answering(txId -> PendingStatus.unknown())::tm);
        assertEquals(WRITER_COMMIT, resolve(resolver, WRITER));
    }

    @Test
    void forceAbortRaceOurMarkerLandsAfterTheWriterCommittedAndCleanedUp() throws IOException {
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void beforeInvalidate(long writerTxId) {
                // The writer's whole commit happens between our last look and our marker: commit point, commit cell,
                // entry deleted. Our marker then finds no entry and lands.
                commitTable.tryCommit(writerTxId, WRITER_COMMIT, null);
                commitCells.write(WRITER, WRITER_COMMIT);
                commitTable.delete(writerTxId);
            }
        });
        assertEquals(WRITER_COMMIT, resolve(resolver(0, ScriptedTm.answering(txId -> PendingStatus.unknown())),
                WRITER));
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state(),
                "the stray marker was removed: the commit cell wins");
    }

    // ---- fast-path versions and interruption --------------------------------------------------------------------

    @Test
    void aFastPathShapedVersionIsCommittedOnlyByItsCommitTableEntryNeverWaitedForOrAborted() throws IOException {
        long omidStart = TimestampLayout.firstSlotOfMillis(1_500) + TimestampLayout.FAST_PATH_FIRST_OFFSET;
        ScriptedTm tm = ScriptedTm.answering(txId -> PendingStatus.unknown());
        AtomicInteger invalidations = countInvalidations();
        assertEquals(Visibility.NOT_COMMITTED, resolve(resolver(LONG_WAIT_MS, tm), omidStart));
        assertEquals(0, invalidations.get());
        assertEquals(List.of(), tm.asked());

        long omidCommit = omidStart + 1_000;
        commitTable.tryCommit(TimestampLayout.txIdOf(omidStart), omidCommit);
        assertEquals(omidCommit, resolve(resolver(LONG_WAIT_MS, tm), omidStart));
        assertEquals(List.of("heal " + omidStart + "@" + omidCommit), commitCells.heals);
    }

    @Test
    void anInterruptedWaitEndsTheReadWithoutAbortingTheWriter() {
        AtomicInteger invalidations = countInvalidations();
        Thread.currentThread().interrupt();
        try {
            assertThrows(InterruptedIOException.class,
                    () -> resolve(resolver(LONG_WAIT_MS, ScriptedTm.answering(txId -> PendingStatus.unknown())), WRITER));
        } finally {
            Thread.interrupted();
        }
        assertEquals(0, invalidations.get());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state());
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private CommitResolver resolver(long waitMs, ScriptedTm tm) {
        return new CommitResolver(commitTable, waitMs, tm::tm);
    }

    private long resolve(CommitResolver resolver, long version) throws IOException {
        return resolver.resolve(ROW, FAMILY, QUALIFIER, version, READER, commitCells);
    }

    private static AtomicInteger countInvalidations() {
        AtomicInteger count = new AtomicInteger();
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void beforeInvalidate(long writerTxId) {
                count.incrementAndGet();
            }
        });
        return count;
    }

    /** The commit cells of the one column under test, by version; can make one appear at the n-th read. */
    private static final class CommitCells implements CommitCellReader {
        private final Map<Long, Long> cells = new ConcurrentHashMap<>();
        private final List<String> heals = new ArrayList<>();
        private int reads;
        private int appearAtRead = -1;
        private long appearVersion;
        private long appearCommitTs;

        void write(long version, long commitTs) {
            cells.put(version, commitTs);
        }

        void writeOnRead(int read, long version, long commitTs) {
            appearAtRead = read;
            appearVersion = version;
            appearCommitTs = commitTs;
        }

        @Override
        public long read(byte[] row, byte[] family, byte[] qualifier, long version) {
            if (++reads == appearAtRead) {
                write(appearVersion, appearCommitTs);
            }
            return cells.getOrDefault(version, Visibility.NOT_COMMITTED);
        }

        @Override
        public void committedWithoutCommitCell(byte[] row, byte[] family, byte[] qualifier, long version,
                                               long commitTs) {
            heals.add("heal " + version + "@" + commitTs);
        }
    }

    /** A commit table that forwards to another, for tests that let the writer act between the reader's calls. */
    private static class ForwardingCommitTable implements CommitTable {
        private final CommitTable delegate;

        ForwardingCommitTable(CommitTable delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
            return delegate.tryCommit(txId, commitTs, recoveryRecord);
        }

        @Override
        public byte[] recoveryRecord(long txId) throws IOException {
            return delegate.recoveryRecord(txId);
        }

        @Override
        public Entry lookup(long txId) throws IOException {
            return delegate.lookup(txId);
        }

        @Override
        public boolean tryInvalidate(long txId) throws IOException {
            return delegate.tryInvalidate(txId);
        }

        @Override
        public void delete(long txId) throws IOException {
            delegate.delete(txId);
        }

        @Override
        public java.util.stream.Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException {
            return delegate.committedBefore(txIdBelow);
        }
    }
}
