package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TransactionManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pending version whose writer is below the commit-point horizon (no transaction below it can still write a commit
 * point; its invalid marker may already be gone) is not committed: the reader neither asks the TM, nor waits, nor
 * force-aborts. Only a commit cell can still say otherwise: a writer that committed long ago may have finished its
 * post-commit (commit cells, then the entry deleted) between the reader's first look at the cell and its look-up.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // the pending wait below is 60 s: waiting at all fails the test
class CommitResolverCommitPointHorizonTest {
    private static final byte[] ROW = {1};
    private static final byte[] FAMILY = {'f'};
    private static final byte[] QUALIFIER = {'q'};
    private static final long WRITER = TimestampLayout.firstSlotOfMillis(1_000);
    private static final long READER = TimestampLayout.firstSlotOfMillis(5_000);
    private static final long WAIT_MS = 60_000;

    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();
    private final AtomicInteger tmQuestions = new AtomicInteger();
    private final TransactionManager countingTm = new TransactionManager() {
        @Override
        public long begin() {
            throw new AssertionError("not used");
        }

        @Override
        public io.phoenixtxn.tm.CommitDecision commit(long txId, long since, long[] rows, long[] tables) {
            throw new AssertionError("not used");
        }

        @Override
        public long fence(long tableId) {
            throw new AssertionError("not used");
        }

        @Override
        public PendingStatus pendingStatus(long writerTxId, long readerTxId) {
            tmQuestions.incrementAndGet();
            return PendingStatus.unknown();
        }

        @Override
        public long lowWaterMark() {
            return 0;
        }

        @Override
        public void close() {
        }
    };

    private CommitResolver resolver(long commitPointSafe) {
        return new CommitResolver(commitTable, WAIT_MS, () -> countingTm, () -> commitPointSafe);
    }

    @Test
    void aWriterBelowTheCommitPointHorizonIsNotCommittedAtOnce() throws Exception {
        long seen = resolver(WRITER + 1).resolve(ROW, FAMILY, QUALIFIER, WRITER + 2, READER,
                (row, family, qualifier, version) -> Visibility.NOT_COMMITTED);

        assertEquals(Visibility.NOT_COMMITTED, seen);
        assertEquals(0, tmQuestions.get(), "the TM was asked about a writer that can never commit");
        assertEquals(CommitTable.Entry.ABSENT, commitTable.lookup(WRITER), "no invalid marker was written");
    }

    @Test
    void aCommitCellWrittenBeforeTheEntryWentStillWins() throws Exception {
        long commitTs = WRITER + TimestampLayout.SLOT_WIDTH;
        AtomicInteger reads = new AtomicInteger();
        // First look: no commit cell yet. The writer's post-commit then writes it and deletes the entry.
        CommitCellReader cells = (row, family, qualifier, version) ->
                reads.incrementAndGet() == 1 ? Visibility.NOT_COMMITTED : commitTs;

        long seen = resolver(WRITER + 1).resolve(ROW, FAMILY, QUALIFIER, WRITER, READER, cells);

        assertEquals(commitTs, seen, "a committed writer read as not committed");
        assertEquals(0, tmQuestions.get());
    }

    @Test
    void aWriterAtOrAboveTheHorizonIsResolvedAsBefore() throws Exception {
        CommitResolver resolver = new CommitResolver(commitTable, 0, () -> countingTm, () -> WRITER);
        long seen = resolver.resolve(ROW, FAMILY, QUALIFIER, WRITER, READER,
                (row, family, qualifier, version) -> Visibility.NOT_COMMITTED);

        assertEquals(Visibility.NOT_COMMITTED, seen);
        assertEquals(1, tmQuestions.get(), "asked the TM");
        assertEquals(CommitTable.Entry.INVALIDATED, commitTable.lookup(WRITER), "force-aborted (Omid LL)");
    }

    @Test
    void anUnknownHorizonChangesNothing() throws Exception {
        CommitResolver resolver = new CommitResolver(commitTable, 0, () -> countingTm, () -> -1);
        resolver.resolve(ROW, FAMILY, QUALIFIER, WRITER, READER,
                (row, family, qualifier, version) -> Visibility.NOT_COMMITTED);
        assertTrue(tmQuestions.get() == 1);
        assertFalse(commitTable.lookup(WRITER).state() == CommitTable.Entry.State.ABSENT);
    }
}
