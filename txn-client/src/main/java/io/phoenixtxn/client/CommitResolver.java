package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Finds the commit timestamp of a version that has no commit cell in hand (VLDB'18 sec. 3.2, Omid LL reader):
 * <ol>
 *   <li>its commit cell (the caller may not have seen it: it sorts after some qualifiers, or was written since);</li>
 *   <li>the commit table: a commit value decides, an invalid marker means aborted;</li>
 *   <li>no entry, and the writer is below the commit-point horizon (no transaction below it can still write a commit
 *       point): not committed, unless its commit cell appeared meanwhile; no TM question, no wait, no force-abort
 *       (compaction-time GC may have removed its invalid marker);</li>
 *   <li>no entry: ask the TM ({@link PendingStatus}). A writer the TM has not decided would commit after the reader
 *       started, and one decided with a later commit timestamp is invisible too: neither is aborted (an extension of
 *       Omid LL that keeps in-flight writers alive under readers). Otherwise (decided below the reader's start, or
 *       the TM cannot say) wait up to {@code pendingWaitMs} for its commit point, re-checking cell and table;</li>
 *   <li>then force-abort it with the invalid marker. If the marker lost the race, the writer committed: use its
 *       value. If it won, re-read the commit cell: a writer that committed and already cleaned up its entry
 *       between our steps left a commit cell, which wins (and our stray marker is removed).</li>
 * </ol>
 * Used by the region observer for every read; by the client only for tests and tools. What it did is counted in
 * {@link ResolutionCounters} (the region server's metrics).
 */
public final class CommitResolver {
    private static final Logger LOG = LoggerFactory.getLogger(CommitResolver.class);

    private final CommitTable commitTable;
    private final long pendingWaitNanos;
    private final Supplier<TransactionManager> tm;
    private final LongSupplier commitPointSafe;

    /**
     * @param tm the TM to ask about pending writers; may supply null (no TM reachable from here), which makes every
     *           pending writer UNKNOWN and falls back to wait + force-abort
     */
    public CommitResolver(CommitTable commitTable, long pendingWaitMs, Supplier<TransactionManager> tm) {
        this(commitTable, pendingWaitMs, tm, () -> -1);
    }

    /**
     * @param commitPointSafe the commit-point horizon ({@code Horizon.commitPointSafe()}) as this process knows it, or
     *                        -1: no transaction below it can still write its commit point
     */
    public CommitResolver(CommitTable commitTable, long pendingWaitMs, Supplier<TransactionManager> tm,
                          LongSupplier commitPointSafe) {
        this.commitTable = commitTable;
        this.pendingWaitNanos = TimeUnit.MILLISECONDS.toNanos(pendingWaitMs);
        this.tm = tm;
        this.commitPointSafe = commitPointSafe;
    }

    /**
     * Commit timestamp of the version as far as a reader that started at {@code readerTxId} needs to know it: the
     * real commit timestamp, {@link Visibility#NOT_COMMITTED}, or any value at or above {@code readerTxId} for a
     * writer that cannot be in the reader's snapshot.
     */
    public long resolve(byte[] row, byte[] family, byte[] qualifier, long version, long readerTxId,
                        CommitCellReader commitCells) throws IOException {
        long fromCell = commitCells.read(row, family, qualifier, version);
        if (fromCell != Visibility.NOT_COMMITTED) {
            return fromCell;
        }
        long writer = TimestampLayout.txIdOf(version);
        if (TimestampLayout.isFastPathVersion(version)) {
            // Our fast-path versions are written together with their commit cell: without one, not committed. But
            // Apache Omid 1.1 start timestamps (ms x 10^6 + k x 50) have this shape too, and an Omid commit whose
            // shadow cells were never written is committed in the commit table only: consult it once (no wait and no
            // force-abort for these, as Omid's own readers do neither).
            CommitTable.Entry entry = commitTable.lookup(writer);
            if (entry.state() != CommitTable.Entry.State.COMMITTED) {
                return Visibility.NOT_COMMITTED;
            }
            commitCells.committedWithoutCommitCell(row, family, qualifier, version, entry.commitTs());
            return entry.commitTs();
        }
        ProtocolHooks.current().onPendingVersion(writer);
        ResolutionCounters.pendingResolved();
        CommitTable.Entry entry = commitTable.lookup(writer);
        if (entry.state() == CommitTable.Entry.State.ABSENT && writer < commitPointSafe.getAsLong()) {
            // It can never write a commit point, and its invalid marker may be gone already (compaction-time GC
            // removes those). A writer that committed long ago and finished its post-commit since our first look
            // wrote its commit cells before deleting the entry: this second look finds them.
            return commitCells.read(row, family, qualifier, version);
        }
        if (entry.state() == CommitTable.Entry.State.ABSENT) {
            PendingStatus status = askTm(writer, readerTxId);
            if (status.kind() == PendingStatus.Kind.NOT_DECIDED) {
                return Visibility.NOT_COMMITTED;
            }
            if (status.kind() == PendingStatus.Kind.DECIDED && status.commitTs() >= readerTxId) {
                return status.commitTs();
            }
        }
        long deadline = System.nanoTime() + pendingWaitNanos;
        if (entry.state() == CommitTable.Entry.State.ABSENT && pendingWaitNanos > 0) {
            ResolutionCounters.waited();
        }
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
                commitCells.committedWithoutCommitCell(row, family, qualifier, version, entry.commitTs());
                return entry.commitTs();
            case INVALIDATED:
                // A marker may be another reader's stray one over a writer that committed and finished its post-commit
                // since our first look (commit cells first, then the entry went): its commit cell says so.
                return commitCells.read(row, family, qualifier, version);
            default:
                return forceAbort(writer, row, family, qualifier, version, commitCells);
        }
    }

    /**
     * Asks with the reader's start: only a TM that issued it can promise that the writer commits above it
     * (NOT_DECIDED); any other TM, or no TM, answers UNKNOWN.
     */
    private PendingStatus askTm(long writer, long readerTxId) {
        TransactionManager manager = tm == null ? null : tm.get();
        if (manager == null) {
            return PendingStatus.unknown();
        }
        try {
            PendingStatus status = manager.pendingStatus(writer, readerTxId);
            ResolutionCounters.statusQueried(status.kind() == PendingStatus.Kind.UNKNOWN);
            return status;
        } catch (TmException e) {
            ResolutionCounters.statusQueried(true);
            LOG.debug("TM could not tell the status of pending transaction {}: {}", writer, e.getMessage());
            return PendingStatus.unknown();
        }
    }

    private long forceAbort(long writer, byte[] row, byte[] family, byte[] qualifier, long version,
                            CommitCellReader commitCells) throws IOException {
        ProtocolHooks.current().beforeInvalidate(writer);
        if (!commitTable.tryInvalidate(writer)) {
            CommitTable.Entry entry = commitTable.lookup(writer);
            if (entry.state() == CommitTable.Entry.State.COMMITTED) {
                commitCells.committedWithoutCommitCell(row, family, qualifier, version, entry.commitTs());
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
        ResolutionCounters.forceAborted();
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
