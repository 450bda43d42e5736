package io.phoenixtxn.tm;

/**
 * Durable upper bound of every timestamp a TM may have issued (FAST'17 sec. 6, "maxTS"). A primary reserves an
 * epoch by moving it forward with compare-and-set before it issues timestamps from the epoch; a new primary
 * starts above it. Implementations: in memory (single process), ZooKeeper (HA).
 */
public interface TimestampStorage {
    /** The current reservation, 0 if none was ever made. */
    long getMaxTimestamp() throws TmException;

    /**
     * Atomically replaces {@code expected} with {@code newMax}; false if someone else changed it. A
     * {@link TmException} means the outcome is unknown (the write may have been applied): calling again from the same
     * {@code expected} settles it, and must not answer false because of this instance's own earlier write.
     */
    boolean compareAndSet(long expected, long newMax) throws TmException;
}
