package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.VisibilityLevel;

/**
 * One transaction's client-side state: its snapshot (stepped by checkpoints and level changes), its write set and
 * its status. A {@link #childView()} shares the snapshot's id and pointers but has its own write set and cannot
 * commit (Phoenix sub-tasks); {@link #readOnlyView(Snapshot)} is a decoded transaction on a region server.
 */
public final class Transaction {
    public enum Status { RUNNING, COMMITTED, ABORTED }

    private final long txId;
    private final WriteSet writeSet;
    private final boolean canCommit;
    private volatile Snapshot snapshot;
    private volatile Status status = Status.RUNNING;
    private volatile long commitTs = -1;
    /** Rows that got a family-delete marker at the current write pointer (see {@link #versionForPut}). */
    private final java.util.Set<String> rowsDeletedAtWritePointer = new java.util.HashSet<>();

    private Transaction(Snapshot snapshot, WriteSet writeSet, boolean canCommit) {
        this.txId = snapshot.txId();
        this.snapshot = snapshot;
        this.writeSet = writeSet;
        this.canCommit = canCommit;
    }

    public static Transaction begun(long txId) {
        return new Transaction(Snapshot.begin(txId), new WriteSet(), true);
    }

    /** A transaction known only by its snapshot (decoded on a region server, or in MapReduce): cannot commit. */
    public static Transaction readOnlyView(Snapshot snapshot) {
        return new Transaction(snapshot, new WriteSet(), false);
    }

    /** Same id and pointers, a fresh write set, no commit (merged back through {@link #join}). */
    public Transaction childView() {
        return new Transaction(snapshot, new WriteSet(), false);
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
        return status;
    }

    public boolean isRunning() {
        return status == Status.RUNNING;
    }

    public long commitTs() {
        return commitTs;
    }

    void markCommitted(long ts) {
        commitTs = ts;
        status = Status.COMMITTED;
    }

    void markAborted() {
        status = Status.ABORTED;
    }

    @Override
    public String toString() {
        return "Transaction{" + snapshot + ", " + status + (commitTs > 0 ? ", commit=" + commitTs : "") + "}";
    }
}
