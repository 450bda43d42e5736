package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.VisibilityLevel;

/**
 * One transaction's client-side state: its snapshot (stepped by checkpoints and level changes), its write set and
 * its status. A {@link #childView()} shares the snapshot's id and pointers but has its own write set and cannot
 * commit (Phoenix sub-tasks); {@link #readOnlyView(Snapshot)} is a decoded transaction on a region server.
 *
 * <p>Status moves only forward, by compare-and-set, so a commit and an abort from another thread (a connection
 * closed meanwhile) can never both act: RUNNING -> COMMITTING (the commit owns the transaction from here: no more
 * writes, no rollback) -> COMMITTED | ABORTED | IN_DOUBT; RUNNING -> ABORTED. IN_DOUBT means the commit point may
 * have been written and nobody could confirm it: the tentative cells stay for readers and the commit-table cleaner.
 */
public final class Transaction {
    public enum Status { RUNNING, COMMITTING, COMMITTED, ABORTED, IN_DOUBT }

    private final long txId;
    private final WriteSet writeSet;
    private final boolean canCommit;
    private volatile Snapshot snapshot;
    private final java.util.concurrent.atomic.AtomicReference<Status> status =
            new java.util.concurrent.atomic.AtomicReference<>(Status.RUNNING);
    private volatile long commitTs = -1;
    /**
     * Write-write conflicts of this transaction are checked against commits after this timestamp: its own start,
     * or (a replay of a failed transaction's writes, see {@link TxnClient#beginReplayOf}) the failed one's start.
     */
    private volatile long conflictsSince;
    /** Set when a client tracks this transaction for the GC horizon (see {@link OpenTransactionTracker}). */
    private volatile OpenTransactionTracker.Lease lease;
    /** Rows that got a family-delete marker at the current write pointer (see {@link #versionForPut}). */
    private final java.util.Set<String> rowsDeletedAtWritePointer = new java.util.HashSet<>();

    private Transaction(Snapshot snapshot, WriteSet writeSet, boolean canCommit) {
        this.txId = snapshot.txId();
        this.snapshot = snapshot;
        this.writeSet = writeSet;
        this.canCommit = canCommit;
        this.conflictsSince = txId;
    }

    public static Transaction begun(long txId) {
        return new Transaction(Snapshot.begin(txId), new WriteSet(), true);
    }

    /** A transaction whose writes may have been computed by an earlier one that started at {@code conflictsSince}. */
    static Transaction begunAsReplay(long txId, long conflictsSince) {
        Transaction tx = begun(txId);
        tx.conflictsSince = Math.min(conflictsSince, txId);
        return tx;
    }

    /** A transaction known only by its snapshot (decoded on a region server, or in MapReduce): cannot commit. */
    public static Transaction readOnlyView(Snapshot snapshot) {
        return new Transaction(snapshot, new WriteSet(), false);
    }

    /** Same id and pointers, a fresh write set, no commit (merged back through {@link #join}). */
    public Transaction childView() {
        Transaction child = new Transaction(snapshot, new WriteSet(), false);
        child.lease = lease; // same transaction: expires with it
        return child;
    }

    public void join(Transaction child) {
        writeSet.addAll(child.writeSet);
    }

    public long txId() {
        return txId;
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public long writePointer() {
        return snapshot.writePointer();
    }

    public long readPointer() {
        return snapshot.readPointer();
    }

    /** Starts a new write pointer; reads switch to SNAPSHOT_EXCLUDE_CURRENT (SIX). */
    public synchronized void checkpoint() {
        snapshot = snapshot.checkpoint();
        rowsDeletedAtWritePointer.clear();
    }

    /** Remembers a row delete written at the current write pointer. */
    synchronized void noteRowDelete(org.apache.hadoop.hbase.TableName table, byte[] row) {
        rowsDeletedAtWritePointer.add(key(table, row));
    }

    /**
     * The version a put to {@code row} must use: the write pointer, stepped first if the row was deleted at the
     * current pointer (a delete marker masks cells of equal version, so a re-insert needs a newer one).
     */
    synchronized long versionForPut(org.apache.hadoop.hbase.TableName table, byte[] row) {
        if (!rowsDeletedAtWritePointer.isEmpty() && rowsDeletedAtWritePointer.contains(key(table, row))) {
            snapshot = snapshot.step();
            rowsDeletedAtWritePointer.clear();
        }
        return snapshot.writePointer();
    }

    private static String key(org.apache.hadoop.hbase.TableName table, byte[] row) {
        return table.getNameAsString() + '\u0000' + org.apache.hadoop.hbase.util.Bytes.toStringBinary(row);
    }

    public synchronized void setVisibilityLevel(VisibilityLevel level) {
        snapshot = snapshot.withLevel(level);
    }

    public VisibilityLevel visibilityLevel() {
        return snapshot.level();
    }

    public WriteSet writeSet() {
        return writeSet;
    }

    public boolean canCommit() {
        return canCommit;
    }

    public Status status() {
        return status.get();
    }

    public boolean isRunning() {
        return status.get() == Status.RUNNING;
    }

    public long commitTs() {
        return commitTs;
    }

    /** See {@link #conflictsSince}. */
    public long conflictsSince() {
        return conflictsSince;
    }

    /** True while this transaction may be a replay whose conflicts are checked from an earlier start. */
    public boolean isReplay() {
        return conflictsSince < txId;
    }

    /**
     * The application used this transaction itself (it ran a statement in it): its writes are its own, computed
     * from its own snapshot, so its conflict window starts at its own start again.
     */
    public void notAReplay() {
        conflictsSince = txId;
    }

    void attachLease(OpenTransactionTracker.Lease attached) {
        this.lease = attached;
    }

    OpenTransactionTracker.Lease lease() {
        return lease;
    }

    /**
     * True when the TM let this transaction's lease run out (its client did not renew it in time): versions its
     * snapshot needs may have been garbage-collected, so it must neither read on nor commit.
     */
    public boolean isExpired() {
        OpenTransactionTracker.Lease l = lease;
        return l != null && l.isExpired();
    }

    /** RUNNING -> COMMITTING; false if the transaction was no longer running (aborted from another thread). */
    boolean startCommitting() {
        return status.compareAndSet(Status.RUNNING, Status.COMMITTING);
    }

    /** RUNNING -> ABORTED; false if it was not running (committing, already finished, or in doubt). */
    boolean abortIfRunning() {
        return status.compareAndSet(Status.RUNNING, Status.ABORTED);
    }

    void markCommitted(long ts) {
        commitTs = ts;
        transition(Status.COMMITTED);
    }

    /** COMMITTING -> ABORTED: the commit learned, before or at its commit point, that it did not commit. */
    void markAborted() {
        transition(Status.ABORTED);
    }

    void markInDoubt() {
        transition(Status.IN_DOUBT);
    }

    private void transition(Status to) {
        if (!status.compareAndSet(Status.COMMITTING, to)) {
            throw new IllegalStateException("Transaction " + txId + " is " + status.get() + ", not COMMITTING; cannot"
                    + " become " + to);
        }
    }

    @Override
    public String toString() {
        return "Transaction{" + snapshot + ", " + status.get() + (commitTs > 0 ? ", commit=" + commitTs : "")
                + (isReplay() ? ", conflicts since " + conflictsSince : "") + "}";
    }
}
