package io.phoenixtxn.client;

import java.io.IOException;
import java.util.stream.Stream;

/**
 * The commit table of Omid LL (VLDB'18 sec. 3): one entry per transaction between its commit point and the end of
 * its post-commit. The client writes it; readers resolve tentative cells through it and may invalidate a writer
 * that has not reached it. Seam for fault injection; {@link HBaseCommitTable} is the real one. Everything that reads
 * or writes the commit table goes through this interface, so its layout is known in one class.
 */
public interface CommitTable {

    /** What the table says about one transaction. */
    final class Entry {
        public enum State { COMMITTED, INVALIDATED, ABSENT }

        public static final Entry ABSENT = new Entry(State.ABSENT, -1);
        public static final Entry INVALIDATED = new Entry(State.INVALIDATED, -1);

        private final State state;
        private final long commitTs;

        private Entry(State state, long commitTs) {
            this.state = state;
            this.commitTs = commitTs;
        }

        public static Entry committed(long commitTs) {
            return new Entry(State.COMMITTED, commitTs);
        }

        public State state() {
            return state;
        }

        public long commitTs() {
            return commitTs;
        }

        @Override
        public String toString() {
            return state == State.COMMITTED ? "committed@" + commitTs : state.name();
        }
    }

    /**
     * A committed entry as {@link CommitTableCleaner} needs it.
     *
     * @param recoveryRecord {@link WrittenCellsCodec} bytes, or null when none was stored (Omid's entries, records
     *                       over {@link WrittenCellsCodec#MAX_RECORD_BYTES})
     */
    record CommittedEntry(long txId, long commitTs, byte[] recoveryRecord) {
    }

    /**
     * The commit point: records {@code commitTs} unless a reader invalidated the transaction first.
     *
     * @return false when the transaction was invalidated (it must abort)
     */
    default boolean tryCommit(long txId, long commitTs) throws IOException {
        return tryCommit(txId, commitTs, null);
    }

    /**
     * As {@link #tryCommit(long, long)}, storing {@code recoveryRecord} ({@link WrittenCellsCodec}; may be null) in
     * the same atomic write, so a cleaner can finish the post-commit of a client that dies after this point.
     */
    boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException;

    /** The recovery record of a committed entry, or null if none was stored. */
    byte[] recoveryRecord(long txId) throws IOException;

    Entry lookup(long txId) throws IOException;

    /**
     * Force-abort: marks the transaction invalid unless it already committed.
     *
     * @return true when the transaction can no longer commit
     */
    boolean tryInvalidate(long txId) throws IOException;

    /** Removes the entry (after post-commit, or after an invalidated writer cleaned up). */
    void delete(long txId) throws IOException;

    /**
     * The committed entries of transactions that started before {@code txIdBelow}, with their recovery records, in
     * no particular order; invalidated entries are left out. The stream holds the table open: close it. A read that
     * fails while the stream is consumed surfaces as an {@link java.io.UncheckedIOException}.
     */
    Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException;
}
