package io.phoenixtxn.it.client;

import io.phoenixtxn.client.CommitTable;

import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real commit table with faults injected per call: an RPC that fails before it reaches the region server, or one
 * that is applied and whose answer is then lost (the region server dies after the WAL sync, a timeout). Tests set
 * the fields before the call they want to fail; each fault fires once. History tests set a random fault rate.
 */
final class FaultyCommitTable implements CommitTable {
    /** What one call does besides delegating. */
    enum Fault { NONE, FAIL_BEFORE, APPLY_THEN_FAIL }

    /** Runs between the delegate's answer and the fault (e.g. the cleaner completing the entry meanwhile). */
    interface Interlude {
        void run(long txId) throws IOException;
    }

    private final CommitTable delegate;
    final AtomicReference<Fault> onCommit = new AtomicReference<>(Fault.NONE);
    final AtomicReference<Fault> onInvalidate = new AtomicReference<>(Fault.NONE);
    final AtomicReference<Fault> onDelete = new AtomicReference<>(Fault.NONE);
    /** Probability that a call with no fault set gets a random one (history tests); 0 = scripted faults only. */
    volatile double randomFaultRate;
    volatile Interlude afterCommitApplied = txId -> { };
    volatile Interlude afterInvalidateAnswered = txId -> { };

    FaultyCommitTable(CommitTable delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
        Fault fault = take(onCommit);
        if (fault == Fault.FAIL_BEFORE) {
            throw new IOException("injected: commit-table write failed before reaching the region server");
        }
        boolean result = delegate.tryCommit(txId, commitTs, recoveryRecord);
        afterCommitApplied.run(txId);
        if (fault == Fault.APPLY_THEN_FAIL) {
            throw new IOException("injected: commit-table write applied (" + result + "), answer lost");
        }
        return result;
    }

    @Override
    public boolean tryInvalidate(long txId) throws IOException {
        Fault fault = take(onInvalidate);
        if (fault == Fault.FAIL_BEFORE) {
            throw new IOException("injected: invalidation failed before reaching the region server");
        }
        boolean result = delegate.tryInvalidate(txId);
        afterInvalidateAnswered.run(txId);
        if (fault == Fault.APPLY_THEN_FAIL) {
            throw new IOException("injected: invalidation applied (" + result + "), answer lost");
        }
        return result;
    }

    @Override
    public void delete(long txId) throws IOException {
        Fault fault = take(onDelete);
        if (fault == Fault.FAIL_BEFORE) {
            throw new IOException("injected: commit-table delete failed before reaching the region server");
        }
        delegate.delete(txId);
        if (fault == Fault.APPLY_THEN_FAIL) {
            throw new IOException("injected: commit-table delete applied, answer lost");
        }
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
    public Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException {
        return delegate.committedBefore(txIdBelow);
    }

    private Fault take(AtomicReference<Fault> fault) {
        Fault scripted = fault.getAndSet(Fault.NONE);
        if (scripted != Fault.NONE || randomFaultRate <= 0) {
            return scripted;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextDouble() >= randomFaultRate) {
            return Fault.NONE;
        }
        return random.nextBoolean() ? Fault.FAIL_BEFORE : Fault.APPLY_THEN_FAIL;
    }
}
