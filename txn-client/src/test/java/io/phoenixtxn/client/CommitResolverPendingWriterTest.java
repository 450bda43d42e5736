package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.FenceStore;
import io.phoenixtxn.tm.InMemoryTimestampStorage;
import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader that finds a pending writer asks the TM with its own start ({@link CommitResolver} step 3), so a TM that
 * did not issue that start cannot make it skip a writer that commits below it. Two TM cores on one timestamp
 * storage play a deposed primary and the one that took over; the commit table and the commit cells are in memory.
 */
@Timeout(60)
class CommitResolverPendingWriterTest {
    private static final byte[] ROW = {1};
    private static final byte[] FAMILY = {'f'};
    private static final byte[] QUALIFIER = {'q'};
    /** No commit cell was written for the pending version. */
    private static final CommitCellReader NO_COMMIT_CELL = (row, family, qualifier, version) -> Visibility.NOT_COMMITTED;

    private final InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();
    private final List<TransactionManagerCore> cores = new ArrayList<>();

    @AfterEach
    void stopAll() {
        cores.forEach(TransactionManagerCore::close);
    }

    @Test
    void readerAskingADeposedPrimaryDoesNotSkipAWriterDecidedBelowItsStart() throws Exception {
        TransactionManagerCore deposed = primary();
        TransactionManagerCore current = primary();
        long writer = current.begin();
        CommitDecision decision = current.commit(writer, new long[] {7}, new long[] {3});
        long reader = current.begin(); // the writer's commit point is still to come

        long seen = new CommitResolver(commitTable, 0, () -> deposed)
                .resolve(ROW, FAMILY, QUALIFIER, writer, reader, NO_COMMIT_CELL);
        boolean writerCommitted = commitTable.tryCommit(writer, decision.commitTimestamp());

        assertTrue(decision.commitTimestamp() < reader);
        assertFalse(writerCommitted && seen != decision.commitTimestamp(), "fractured read: the reader skipped "
                + "the writer (" + seen + "), which then committed at " + decision.commitTimestamp()
                + ", below the reader's start " + reader);
        assertEquals(Visibility.NOT_COMMITTED, seen);
        assertEquals(CommitTable.Entry.INVALIDATED, commitTable.lookup(writer), "force-aborted, as in Omid LL");
    }

    @Test
    void readerAskingThePrimaryThatIssuedItsStartLeavesAnUndecidedWriterAlone() throws Exception {
        TransactionManagerCore tm = primary();
        long writer = tm.begin();
        long reader = tm.begin();

        long seen = new CommitResolver(commitTable, 0, () -> tm)
                .resolve(ROW, FAMILY, QUALIFIER, writer, reader, NO_COMMIT_CELL);

        assertEquals(Visibility.NOT_COMMITTED, seen);
        assertEquals(CommitTable.Entry.ABSENT, commitTable.lookup(writer), "an in-flight writer is not aborted");
        CommitDecision decision = tm.commit(writer, new long[] {7}, new long[] {3});
        assertTrue(decision.commitTimestamp() > reader, "its commit lands after the reader's start");
        assertTrue(commitTable.tryCommit(writer, decision.commitTimestamp()));
    }

    private TransactionManagerCore primary() throws TmException {
        TransactionManagerCore core = TransactionManagerCore.start(TmConfig.defaults().withConflictEntries(1 << 12),
                Clock.SYSTEM, storage, FenceStore.inMemory(), Lease.ALWAYS_HELD);
        cores.add(core);
        return core;
    }
}
