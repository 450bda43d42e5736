package io.phoenixtxn.snapshot;

import java.util.Objects;

/**
 * An immutable view of what one transaction reads: its id (the start timestamp, which is also the snapshot),
 * its read and write pointers and its visibility level. Checkpoints and level changes return new instances, so a
 * snapshot handed to a scan can never change under it.
 */
public final class Snapshot {
    private final long txId;
    private final long readPointer;
    private final long writePointer;
    private final VisibilityLevel level;

    private Snapshot(long txId, long readPointer, long writePointer, VisibilityLevel level) {
        if (!TimestampLayout.isSlotStart(txId)) {
            throw new IllegalArgumentException("Not a transaction id (a TM slot start): " + txId + " = "
                    + TimestampLayout.describe(txId));
        }
        if (writePointer < txId || writePointer - txId > TimestampLayout.MAX_CHECKPOINTS) {
            throw new IllegalArgumentException("Write pointer " + writePointer + " outside transaction " + txId);
        }
        this.txId = txId;
        this.readPointer = readPointer;
        this.writePointer = writePointer;
        this.level = Objects.requireNonNull(level, "level");
    }

    /** The snapshot of a transaction that just began. */
    public static Snapshot begin(long txId) {
        return new Snapshot(txId, txId, txId, VisibilityLevel.SNAPSHOT);
    }

    /** Rebuilds a snapshot from its parts (decoding); validates them. */
    public static Snapshot of(long txId, long readPointer, long writePointer, VisibilityLevel level) {
        return new Snapshot(txId, readPointer, writePointer, level);
    }

    /**
     * Starts a new write pointer in the same transaction: what was written so far becomes readable, what the next
     * statement writes does not (SNAPSHOT_EXCLUDE_CURRENT).
     */
    public Snapshot checkpoint() {
        if (writePointer - txId >= TimestampLayout.MAX_CHECKPOINTS) {
            throw new CheckpointLimitException(txId);
        }
        return new Snapshot(txId, writePointer, writePointer + 1, VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
    }

    /**
     * Moves the write pointer without changing what the transaction reads: later writes of the same statement get
     * a newer version than the earlier ones (a row re-inserted after its row delete must not be masked by the
     * delete marker, which HBase's equal-version rule would do). Uses one of the checkpoint offsets.
     */
    public Snapshot step() {
        if (writePointer - txId >= TimestampLayout.MAX_CHECKPOINTS) {
            throw new CheckpointLimitException(txId);
        }
        long read = level == VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT ? readPointer : writePointer + 1;
        return new Snapshot(txId, read, writePointer + 1, level);
    }

    public Snapshot withLevel(VisibilityLevel newLevel) {
        if (newLevel == VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT) {
            return new Snapshot(txId, Math.max(txId, writePointer - 1), writePointer, newLevel);
        }
        return new Snapshot(txId, writePointer, writePointer, newLevel);
    }

    public long txId() {
        return txId;
    }

    public long readPointer() {
        return readPointer;
    }

    public long writePointer() {
        return writePointer;
    }

    public VisibilityLevel level() {
        return level;
    }

    /** Exclusive upper bound of the versions a read of this snapshot may need. */
    public long maxVersionExclusive() {
        return writePointer + 1;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Snapshot)) {
            return false;
        }
        Snapshot s = (Snapshot) o;
        return txId == s.txId && readPointer == s.readPointer && writePointer == s.writePointer && level == s.level;
    }

    @Override
    public int hashCode() {
        return Objects.hash(txId, readPointer, writePointer, level);
    }

    @Override
    public String toString() {
        return "Snapshot{tx=" + txId + ", read=" + readPointer + ", write=" + writePointer + ", " + level + "}";
    }
}
