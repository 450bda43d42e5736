package io.phoenixtxn.tm;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.LongSupplier;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The TM's decision logic, in process: oracle, conflict table, fences and low-water mark. The embedded TM is this
 * class; the network server puts it behind a socket; HA wraps it with a ZooKeeper lease and stores.
 *
 * <p>Fence ordering: a commit's fence check and its commit timestamp happen under the read side of a lock whose
 * write side covers a fence's timestamp and registration. So a writer of a fenced table either commits below the
 * fence timestamp (its writes are in the fence snapshot the index is built from) or sees the fence and aborts.
 */
public final class TransactionManagerCore implements TransactionManager {
    private final TmConfig config;
    private final TimestampOracle oracle;
    private final ConflictTable conflicts;
    private final FenceRegistry fences;
    private final LowWaterMark lowWaterMark;
    private final Lease lease;
    private final ReadWriteLock fenceOrder = new ReentrantReadWriteLock();
    private volatile DecisionLog decisions;
    private final OpenTransactions open;
    private final HorizonHistory horizons;
    private final LongSupplier nanoClock;
    /** Until then a new primary answers no horizon: clients re-announce their open transactions meanwhile. */
    private volatile long graceUntilNanos;
    private volatile String stoppedBecause;

    private TransactionManagerCore(TmConfig config, TimestampOracle oracle, FenceStore fenceStore, Lease lease,
                                   LongSupplier nanoClock) {
        this.config = config;
        this.oracle = oracle;
        this.lowWaterMark = new LowWaterMark();
        this.conflicts = new ConflictTable(config.conflictEntries(), config.conflictAssociativity(), lowWaterMark);
        this.fences = new FenceRegistry(fenceStore);
        this.lease = lease;
        this.nanoClock = nanoClock;
        this.open = new OpenTransactions(config.transactionLeaseMs(), nanoClock);
        this.horizons = new HorizonHistory(config.commitPointHorizonLagMs() * 1_000_000L);
    }

    /**
     * Creates a TM and makes it primary: reserves a new timestamp epoch, loads fences, and raises the low-water mark
     * to the previous epoch (this TM's empty conflict table knows nothing of older commits).
     */
    public static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage timestamps,
                                               FenceStore fenceStore, Lease lease) throws TmException {
        return start(config, clock, timestamps, fenceStore, lease, DecisionLog.DEFAULT_WAIT_MILLIS);
    }

    /** As above; a pending-status question waits at most {@code decisionWaitMillis} for a decision in progress. */
    static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage timestamps,
                                        FenceStore fenceStore, Lease lease, long decisionWaitMillis)
            throws TmException {
        return start(config, clock, timestamps, fenceStore, lease, decisionWaitMillis, System::nanoTime);
    }

    /** As above, with the monotonic clock that measures transaction leases (tests step it). */
    static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage timestamps,
                                        FenceStore fenceStore, Lease lease, long decisionWaitMillis,
                                        LongSupplier nanoClock) throws TmException {
        TimestampOracle oracle = new TimestampOracle(clock, timestamps, config.timestampReservationMs());
        TransactionManagerCore tm = new TransactionManagerCore(config, oracle, fenceStore, lease, nanoClock);
        long previousEpochMax = oracle.initialize();
        tm.lowWaterMark.raiseTo(previousEpochMax);
        tm.decisions = new DecisionLog(config.decisionsRetained(), previousEpochMax, decisionWaitMillis);
        tm.fences.load();
        // Transactions of an earlier primary may still be reading; their clients re-announce them within a lease.
        tm.graceUntilNanos = previousEpochMax > 0 ? nanoClock.getAsLong() + config.transactionLeaseMs() * 1_000_000L
                : nanoClock.getAsLong();
        return tm;
    }

    /** A single-process TM with in-memory storage: tests and the embedded stack without HA. */
    public static TransactionManagerCore startInMemory(TmConfig config) {
        try {
            return start(config, Clock.SYSTEM, new InMemoryTimestampStorage(), FenceStore.inMemory(),
                    Lease.ALWAYS_HELD);
        } catch (TmException e) {
            throw new IllegalStateException("in-memory storage cannot fail", e);
        }
    }

    @Override
    public long begin() throws TmException {
        checkServing();
        try {
            return open.issueAndRegister(oracle::last, oracle::next);
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        }
    }

    /**
     * A slot start drawn like a begin's but registered nowhere: the GC horizon may pass it at once. The lease is
     * checked again once it is drawn, as for a commit decision: a primary paused past its lease must not hand out a
     * timestamp its successor may already have exceeded (a region server would bootstrap its version clock below
     * versions written since).
     */
    @Override
    public long timestamp() throws TmException {
        checkServing();
        try {
            long ts = oracle.next();
            checkServing();
            return ts;
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        }
    }

    @Override
    public CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            throws TmException {
        checkServing();
        if (rowHashes.length > config.maxWriteSet()) {
            throw new TmException("Write set of " + rowHashes.length + " rows exceeds " + TmConfig.MAX_WRITE_SET
                    + "=" + config.maxWriteSet() + "; split the transaction or raise the limit");
        }
        if (conflictsSince > txId) {
            throw new TmException("Commit of " + txId + " asks for conflicts since " + conflictsSince
                    + ", after its own start; a replay validates from the earlier transaction's start");
        }
        // The conflict history a transaction needs starts at conflictsSince: below the mark it may be gone.
        if (conflictsSince < lowWaterMark.get()) {
            return CommitDecision.aborted(AbortReason.BELOW_LOW_WATER_MARK);
        }
        // An expired transaction no longer holds the GC horizon: what it read may be gone, and its cells may be
        // collected as aborted. It must not commit.
        if (!open.isOpen(txId)) {
            return CommitDecision.aborted(AbortReason.EXPIRED);
        }
        // Marked before the commit timestamp is drawn: see DecisionLog.
        decisions.deciding(txId);
        CommitDecision decision = null;
        try {
            decision = decide(txId, conflictsSince, rowHashes, tableIds);
            return decision;
        } finally {
            if (decision != null && decision.isCommitted()) {
                decisions.decided(txId, decision.commitTimestamp());
            } else {
                decisions.abandoned(txId);
            }
        }
    }

    private CommitDecision decide(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            throws TmException {
        long commitTs;
        fenceOrder.readLock().lock();
        try {
            if (fences.blocks(txId, tableIds)) {
                // A write-write conflict is reported first: it is the abort no retry of these same writes can get
                // past, and Phoenix replays a fenced transaction's writes (validated from conflictsSince anyway).
                return CommitDecision.aborted(conflicts.conflicts(conflictsSince, rowHashes)
                        ? AbortReason.CONFLICT : AbortReason.FENCE);
            }
            commitTs = oracle.next();
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        } finally {
            fenceOrder.readLock().unlock();
        }
        switch (conflicts.checkAndRecord(conflictsSince, rowHashes, commitTs)) {
            case CONFLICT:
                return CommitDecision.aborted(AbortReason.CONFLICT);
            case NO_ROOM:
                return CommitDecision.aborted(AbortReason.CONFLICT_HISTORY_FULL);
            default:
                break;
        }
        // Checked last: a primary paused anywhere above must not let a commit out after its lease ran out.
        if (!lease.isHeld()) {
            return CommitDecision.aborted(AbortReason.LEASE_LOST);
        }
        return CommitDecision.committed(commitTs);
    }

    /** Blocks at most the decision-wait bound (see {@link #pendingStatusAsync}). */
    @Override
    public PendingStatus pendingStatus(long writerTxId, long readerTxId) throws TmException {
        try {
            return pendingStatusAsync(writerTxId, readerTxId).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof TmException cause) {
                throw new TmException(cause.getMessage(), cause);
            }
            throw e;
        }
    }

    /**
     * Answers at once, or when a commit of the writer in progress settles, or UNKNOWN after the decision-wait bound
     * ({@link DecisionLog}); no thread waits meanwhile.
     *
     * <p>NOT_DECIDED promises that any later commit of the writer gets a commit timestamp above the reader's start.
     * This TM can promise that only if it issued the reader's start (above its epoch base, at most its last
     * timestamp): its own later commits draw above everything it issued, and a later primary's above everything it
     * may issue. So it answers UNKNOWN for a reader it did not issue (a deposed primary asked by a reader of the new
     * one), and for a writer id it never issued. Primacy is checked again once the answer is known, so a TM deposed
     * meanwhile lets no answer out: the future fails with a {@link TmException}, as it does when this TM is not
     * serving at all.
     */
    @Override
    public CompletableFuture<PendingStatus> pendingStatusAsync(long writerTxId, long readerTxId) {
        try {
            checkServing();
        } catch (TmException e) {
            return CompletableFuture.failedFuture(e);
        }
        long lastIssued = oracle.last();
        boolean issuedHere = readerTxId > oracle.epochBase() && readerTxId <= lastIssued && writerTxId <= lastIssued;
        CompletableFuture<PendingStatus> answer = issuedHere ? decisions.status(writerTxId)
                : CompletableFuture.completedFuture(PendingStatus.unknown());
        return answer.thenApply(this::leavingAsPrimary);
    }

    private PendingStatus leavingAsPrimary(PendingStatus answer) {
        try {
            checkServing();
        } catch (TmException e) {
            throw new CompletionException(e);
        }
        return answer;
    }

    @Override
    public long fence(long tableId) throws TmException {
        checkServing();
        fenceOrder.writeLock().lock();
        try {
            // The index population reads at the fence: it holds the GC horizon until the client finishes it.
            long fenceTs = open.issueAndRegister(oracle::last, oracle::next);
            try {
                fences.add(tableId, fenceTs);
            } catch (TmException | RuntimeException e) {
                open.finish(fenceTs);
                throw e;
            }
            return fenceTs;
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        } finally {
            fenceOrder.writeLock().unlock();
        }
    }

    @Override
    public long lowWaterMark() throws TmException {
        checkServing();
        return lowWaterMark.get();
    }

    @Override
    public void finished(long[] txIds) throws TmException {
        checkServing();
        for (long txId : txIds) {
            open.finish(txId);
        }
    }

    /**
     * Renews open transactions. During the grace period of a new primary, transactions it does not know are adopted:
     * an earlier primary began them and they may still be reading. Afterwards an unknown one is expired.
     */
    @Override
    public long[] keepAlive(long[] txIds) throws TmException {
        checkServing();
        boolean adopting = nanoClock.getAsLong() - graceUntilNanos < 0;
        long[] unknown = null;
        int n = 0;
        for (long txId : txIds) {
            if (open.renew(txId)) {
                continue;
            }
            if (adopting) {
                open.adopt(txId);
                continue;
            }
            if (unknown == null) {
                unknown = new long[txIds.length];
            }
            unknown[n++] = txId;
        }
        return unknown == null ? new long[0] : java.util.Arrays.copyOf(unknown, n);
    }

    /**
     * The GC horizon: the oldest open transaction's start, or just above the last timestamp issued. Unknown during a
     * new primary's grace period. Never goes down.
     */
    @Override
    public Horizon horizon() throws TmException {
        checkServing();
        long now = nanoClock.getAsLong();
        if (now - graceUntilNanos < 0) {
            return Horizon.UNKNOWN;
        }
        long lastIssued = oracle.last(); // read before the scan: see OpenTransactions
        Horizon horizon = horizons.record(open.horizon(lastIssued), now);
        checkServing();
        return horizon;
    }

    /** Transactions holding the GC horizon now (monitoring, tests). */
    public int openTransactions() {
        return open.size();
    }

    /** Base of the current epoch: timestamps at or below it were issued by an earlier primary (or never). */
    public long epochBase() {
        return oracle.epochBase();
    }

    public TimestampOracle oracle() {
        return oracle;
    }

    public int conflictTableCapacity() {
        return conflicts.capacity();
    }

    /** Stops serving for good (lost primacy, shutdown); every later call fails with the reason. */
    public void stop(String reason) {
        if (stoppedBecause == null) {
            stoppedBecause = reason;
        }
    }

    public boolean isServing() {
        return stoppedBecause == null;
    }

    @Override
    public void close() {
        stop("the transaction manager was shut down");
    }

    private void checkServing() throws TmException {
        String reason = stoppedBecause;
        if (reason != null) {
            throw new TmException("Transaction manager is not serving: " + reason);
        }
        if (!lease.isHeld()) {
            throw new TmException("Transaction manager is not primary (its lease is not held); clients fail over"
                    + " to the current primary");
        }
    }
}
