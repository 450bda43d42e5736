package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * NOT_DECIDED lets a reader ignore a pending writer; it is sound only when the answering TM issued the reader's
 * start (design.md sec. 4.2). Two cores on one timestamp storage play a deposed primary (still serving: paused, or
 * a region server still connected to it) and the primary that took over.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PendingStatusSoundnessTest {
    private static final long[] ROW = {42};
    private static final long[] TABLE = {TransactionManagerCoreTest.TABLE_A};

    private final InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
    private final List<TransactionManagerCore> cores = new ArrayList<>();

    @AfterEach
    void stopAll() {
        cores.forEach(TransactionManagerCore::close);
    }

    @Test
    void aTmAnswersForWritersAndReadersItIssued() throws Exception {
        TransactionManagerCore tm = primary(Lease.ALWAYS_HELD);
        long undecided = tm.begin();
        long committed = tm.begin();
        CommitDecision decision = tm.commit(committed, ROW, TABLE);
        long reader = tm.begin();
        assertEquals(PendingStatus.Kind.NOT_DECIDED, tm.pendingStatus(undecided, reader).kind());
        assertEquals(PendingStatus.decided(decision.commitTimestamp()).toString(),
                tm.pendingStatus(committed, reader).toString());
    }

    @Test
    void deposedPrimaryDoesNotJudgeAWriterOfTheNewPrimary() throws Exception {
        TransactionManagerCore deposed = primary(Lease.ALWAYS_HELD);
        deposed.begin();
        TransactionManagerCore current = primary(Lease.ALWAYS_HELD);
        long writer = current.begin();
        long commitTs = current.commit(writer, ROW, TABLE).commitTimestamp(); // commit point not written yet
        long reader = current.begin();

        // NOT_DECIDED here would let the reader skip a commit below its start: a fractured read.
        assertEquals(PendingStatus.Kind.UNKNOWN, deposed.pendingStatus(writer, reader).kind());
        assertEquals(PendingStatus.decided(commitTs).toString(), current.pendingStatus(writer, reader).toString());
    }

    @Test
    void deposedPrimaryDoesNotAnswerAReaderOfTheNewPrimary() throws Exception {
        TransactionManagerCore deposed = primary(Lease.ALWAYS_HELD);
        long writer = deposed.begin();
        primary(Lease.ALWAYS_HELD);
        long reader = cores.get(1).begin();

        assertEquals(PendingStatus.Kind.UNKNOWN, deposed.pendingStatus(writer, reader).kind());
        // Why: a primary paused after its last lease check still commits inside its old epoch, below the reader.
        CommitDecision late = deposed.commit(writer, ROW, TABLE);
        assertTrue(late.isCommitted() && late.commitTimestamp() < reader, late + " vs reader " + reader);
    }

    @Test
    void readerOfAnEarlierEpochIsNotAnswered() throws Exception {
        long oldReader = primary(Lease.ALWAYS_HELD).begin();
        TransactionManagerCore current = primary(Lease.ALWAYS_HELD);
        long writer = current.begin();
        assertEquals(PendingStatus.Kind.UNKNOWN, current.pendingStatus(writer, oldReader).kind());
    }

    @Test
    void idsAboveAnythingIssuedAreNotAnswered() throws Exception {
        TransactionManagerCore tm = primary(Lease.ALWAYS_HELD);
        long writer = tm.begin();
        long reader = tm.begin();
        long notYetIssued = reader + 10 * TimestampLayout.SLOT_WIDTH;
        assertEquals(PendingStatus.Kind.UNKNOWN, tm.pendingStatus(notYetIssued, reader).kind());
        assertEquals(PendingStatus.Kind.UNKNOWN, tm.pendingStatus(Long.MAX_VALUE, reader).kind());
        assertEquals(PendingStatus.Kind.UNKNOWN, tm.pendingStatus(writer, notYetIssued).kind());
    }

    @Test
    void answerComputedWhileTheLeaseRanOutDoesNotLeave() throws Exception {
        AtomicInteger heldChecksLeft = new AtomicInteger(Integer.MAX_VALUE);
        TransactionManagerCore tm = primary(() -> heldChecksLeft.getAndDecrement() > 0);
        long writer = tm.begin();
        long reader = tm.begin();
        heldChecksLeft.set(1); // the check before the lookup passes; the lease runs out before the answer leaves
        TmException e = assertThrows(TmException.class, () -> tm.pendingStatus(writer, reader));
        assertTrue(e.getMessage().contains("not primary"), e.getMessage());
    }

    /** A TM that becomes primary on the shared storage now (above every earlier one). */
    private TransactionManagerCore primary(Lease lease) throws TmException {
        TransactionManagerCore core = TransactionManagerCore.start(TransactionManagerCoreTest.small(Map.of()),
                Clock.SYSTEM, storage, FenceStore.inMemory(), lease);
        cores.add(core);
        return core;
    }
}
