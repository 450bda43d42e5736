package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Finds the commit timestamp of a version that has no commit cell in hand (VLDB'18 sec. 3.2, Omid LL reader):
 * <ol>
 *   <li>its commit cell (the caller may not have seen it: it sorts after some qualifiers, or was written since);</li>
 *   <li>the commit table: a commit value decides, an invalid marker means aborted;</li>
 *   <li>no entry: the writer is pending, crashed or aborted. Wait up to {@code pendingWaitMs} for it to finish
 *       (re-checking the commit cell and the table), which keeps hot rows from aborting writers needlessly;</li>
 *   <li>then force-abort it with the invalid marker. If the marker lost the race, the writer committed: use its
 *       value. If it won, re-read the commit cell: a writer that committed and already cleaned up its entry
 *       between our steps left a commit cell, which wins (and our stray marker is removed).</li>
 * </ol>
 * Used by the region observer for every read; by the client only for tests and tools.
 */
public final class CommitResolver {
    private static final Logger LOG = LoggerFactory.getLogger(CommitResolver.class);

    private final CommitTable commitTable;
    private final long pendingWaitNanos;

    public CommitResolver(CommitTable commitTable, long pendingWaitMs) {
        this.commitTable = commitTable;
        this.pendingWaitNanos = TimeUnit.MILLISECONDS.toNanos(pendingWaitMs);
    }

    /** Commit timestamp of the version, or {@link Visibility#NOT_COMMITTED}. */
    public long resolve(byte[] row, byte[] family, byte[] qualifier, long version, CommitCellReader commitCells)
            throws IOException {
        long fromCell = commitCells.read(row, family, qualifier, version);
        if (fromCell != Visibility.NOT_COMMITTED || TimestampLayout.isFastPathVersion(version)) {
            // Fast-path versions are written together with their commit cell; without one they are not committed.
            return fromCell;
        }
        long writer = TimestampLayout.txIdOf(version);
        ProtocolHooks.current().onPendingVersion(writer);
        CommitTable.Entry entry = commitTable.lookup(writer);
        long deadline = System.nanoTime() + pendingWaitNanos;
        long backoffMicros = 200;
        while (entry.state() == CommitTable.Entry.State.ABSENT && System.nanoTime() < deadline) {
            pause(Math.min(backoffMicros, TimeUnit.NANOSECONDS.toMicros(deadline - System.nanoTime()) + 1));
            backoffMicros = Math.min(backoffMicros * 2, 10_000);
            fromCell = commitCells.read(row, family, qualifier, version);
            if (fromCell != Visibility.NOT_COMMITTED) {
                return fromCell;
            }
            entry = commitTable.lookup(writer);
        }
        switch (entry.state()) {
            case COMMITTED:
                return entry.commitTs();
            case INVALIDATED:
                return Visibility.NOT_COMMITTED;
            default:
                return forceAbort(writer, row, family, qualifier, version, commitCells);
        }
    }

    private long forceAbort(long writer, byte[] row, byte[] family, byte[] qualifier, long version,
                            CommitCellReader commitCells) throws IOException {
        ProtocolHooks.current().beforeInvalidate(writer);
        if (!commitTable.tryInvalidate(writer)) {
            CommitTable.Entry entry = commitTable.lookup(writer);
            if (entry.state() == CommitTable.Entry.State.COMMITTED) {
                return entry.commitTs();
            }
            // Committed, then cleaned its entry between our two calls: the commit cell is there now.
            return commitCells.read(row, family, qualifier, version);
        }
        long fromCell = commitCells.read(row, family, qualifier, version);
        if (fromCell != Visibility.NOT_COMMITTED) {
            // The writer committed and cleaned up before our marker landed: the marker is stray, drop it.
            commitTable.delete(writer);
            return fromCell;
        }
        LOG.debug("Force-aborted pending transaction {}", writer);
        return Visibility.NOT_COMMITTED;
    }

    private static void pause(long micros) throws InterruptedIOException {
        try {
            TimeUnit.MICROSECONDS.sleep(Math.max(1, micros));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for a pending writer");
        }
    }
}
