package io.phoenixtxn.tm;

import io.phoenixtxn.tm.metrics.TmMetrics;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongSupplier;

/**
 * The TM's decision logic, in process: oracle, conflict table, fences and low-water mark. The embedded TM is this
 * class; the network server puts it behind a socket; HA wraps it with a ZooKeeper lease and stores.
 *
 * <p>Fence ordering: a commit's fence check and its commit timestamp happen under the read side of a lock whose
 * write side covers a fence's timestamp and registration. So a writer of a fenced table either commits below the
 * fence timestamp (its writes are in the fence snapshot the index is built from) or sees the fence and aborts. The
 * read side is optimistic ({@link StampedLock}): a commit checks the fences and draws its timestamp without writing
 * shared memory, then validates that no fence was taken meanwhile; if one was, it discards that timestamp and does
 * both again under the read lock.
 *
 * <p>The commit path allocates nothing but its answer: write sets are prepared ({@link ConflictKeys}) in a buffer of
 * the calling thread, and {@link #commit(long, long, int, ConflictKeys, long[], int, int)} answers a primitive
 * outcome ({@link CommitDecision#of}); the TM server uses it and {@link #begin(int, long[], int)} to decide a batch
 * of requests without boxing. Begins and decisions are counted in {@link TmMetrics} without locks or allocation.
 */
public final class TransactionManagerCore implements BatchingTransactionManager {
    private final TmConfig config;
    private final TimestampOracle oracle;
    private final ConflictTable conflicts;
    private final FenceRegistry fences;
    private final BulkLoadHolds loads = new BulkLoadHolds();
    private final LowWaterMark lowWaterMark;
    private final Lease lease;
    private static final ThreadLocal<ConflictKeys> KEYS = ThreadLocal.withInitial(ConflictKeys::new);
    private static final long CONFLICT = CommitDecision.abortOutcome(AbortReason.CONFLICT);
    private static final long FENCE = CommitDecision.abortOutcome(AbortReason.FENCE);
    private static final long BELOW_LOW_WATER_MARK = CommitDecision.abortOutcome(AbortReason.BELOW_LOW_WATER_MARK);
    private static final long CONFLICT_HISTORY_FULL = CommitDecision.abortOutcome(AbortReason.CONFLICT_HISTORY_FULL);
    private static final long LEASE_LOST = CommitDecision.abortOutcome(AbortReason.LEASE_LOST);
    private static final long EXPIRED = CommitDecision.abortOutcome(AbortReason.EXPIRED);

    private final StampedLock fenceOrder = new StampedLock();
    private volatile DecisionLog decisions;
    private final OpenTransactions open;
    private final HorizonHistory horizons;
    private final LongSupplier nanoClock;
    /** The oracle's methods as the open-transaction set calls them, bound once (a method reference allocates). */
    private final LongSupplier lastIssued;
    private final OpenTransactions.TimestampSource draw;
    private final OpenTransactions.BatchSource drawMany;
    private final java.util.function.LongPredicate isOpen;
    /** Until then a new primary answers no horizon: clients re-announce their open transactions meanwhile. */
    private volatile long graceUntilNanos;
    private volatile String stoppedBecause;
    private final TmMetrics metrics;

    private TransactionManagerCore(TmConfig config, TimestampOracle oracle, FenceStore fenceStore, Lease lease,
                                   LongSupplier nanoClock, TmMetrics metrics) {
        this.config = config;
        this.metrics = metrics;
        this.oracle = oracle;
        this.lowWaterMark = new LowWaterMark();
        this.conflicts = new ConflictTable(config.conflictEntries(), config.conflictAssociativity(), lowWaterMark);
        this.fences = new FenceRegistry(fenceStore);
        this.lease = lease;
        this.nanoClock = nanoClock;
        this.open = new OpenTransactions(config.transactionLeaseMs(), nanoClock);
        this.horizons = new HorizonHistory(config.commitPointHorizonLagMs() * 1_000_000L);
        this.lastIssued = oracle::last;
        this.draw = oracle::next;
        this.drawMany = oracle::next;
        this.isOpen = open::isOpen;
    }

    /**
     * Creates a TM and makes it primary: reserves a new timestamp epoch, loads fences, and raises the low-water mark
     * to the previous epoch (this TM's empty conflict table knows nothing of older commits).
     */
    public static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage timestamps,
                                               FenceStore fenceStore, Lease lease) throws TmException {
        return start(config, clock, timestamps, fenceStore, lease, new TmMetrics());
    }

    /** As above, counting into {@code metrics} (a TM server's, shared by its successive primary terms). */
    public static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage timestamps,
                                               FenceStore fenceStore, Lease lease, TmMetrics metrics)
            throws TmException {
        return start(config, clock, timestamps, fenceStore, lease, DecisionLog.DEFAULT_WAIT_MILLIS, System::nanoTime,
                metrics);
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
        return start(config, clock, timestamps, fenceStore, lease, decisionWaitMillis, nanoClock, new TmMetrics());
    }

    private static TransactionManagerCore start(TmConfig config, Clock clock, TimestampStorage timestamps,
                                                FenceStore fenceStore, Lease lease, long decisionWaitMillis,
                                                LongSupplier nanoClock, TmMetrics metrics) throws TmException {
        TimestampOracle oracle = new TimestampOracle(clock, timestamps, config.timestampReservationMs());
        TransactionManagerCore tm = new TransactionManagerCore(config, oracle, fenceStore, lease, nanoClock, metrics);
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
        return startInMemory(config, new TmMetrics());
    }

    /** As above, counting into {@code metrics}. */
    public static TransactionManagerCore startInMemory(TmConfig config, TmMetrics metrics) {
        try {
            return start(config, Clock.SYSTEM, new InMemoryTimestampStorage(), FenceStore.inMemory(),
                    Lease.ALWAYS_HELD, metrics);
        } catch (TmException e) {
            throw new IllegalStateException("in-memory storage cannot fail", e);
        }
    }

    @Override
    public long begin() throws TmException {
        checkServing();
        try {
            long txId = open.issueAndRegister(lastIssued, draw);
            metrics.began(1);
            return txId;
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        }
    }

    /**
     * {@code count} begins in one timestamp-oracle step: start timestamps are written to
     * {@code out[from, from + count)}, each registered as open like {@link #begin()}'s.
     */
    @Override
    public void begin(int count, long[] out, int from) throws TmException {
        checkServing();
        try {
            open.issueAndRegister(lastIssued, drawMany, count, out, from);
            metrics.began(count);
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
        checkWriteSetSize(rowHashes.length);
        return CommitDecision.of(commitServing(txId, conflictsSince, KEYS.get().prepare(rowHashes), tableIds, 0,
                tableIds.length));
    }

    /**
     * {@link #commit(long, long, long[], long[])} without allocation: the write set prepared by the calling thread
     * ({@code rowCount} rows before deduplication), the tables as {@code tableIds[from, to)}; the answer is a commit
     * timestamp (positive) or an abort ({@link CommitDecision#reasonOf}).
     */
    @Override
    public long commit(long txId, long conflictsSince, int rowCount, ConflictKeys keys, long[] tableIds,
                       int tablesFrom, int tablesTo) throws TmException {
        checkServing();
        checkWriteSetSize(rowCount);
        return commitServing(txId, conflictsSince, keys, tableIds, tablesFrom, tablesTo);
    }

    /**
     * The decision, counted: one commit in {@link TmMetrics#SAMPLE_EVERY} (by its id) is timed, the others read no
     * clock. A commit that fails with an exception is not a decision and is not counted.
     */
    private long commitServing(long txId, long conflictsSince, ConflictKeys keys, long[] tableIds, int tablesFrom,
                               int tablesTo) throws TmException {
        boolean sampled = TmMetrics.sampled(txId);
        long started = sampled ? System.nanoTime() : 0;
        long outcome = decideServing(txId, conflictsSince, keys, tableIds, tablesFrom, tablesTo);
        metrics.decided(outcome, sampled ? System.nanoTime() - started : -1);
        return outcome;
    }

    /**
     * The decision, once the TM was found serving. The lease is read exactly twice per commit, on entry and just
     * before the decision leaves (TmHaPauseTest freezes a commit between the two).
     */
    private long decideServing(long txId, long conflictsSince, ConflictKeys keys, long[] tableIds, int tablesFrom,
                               int tablesTo) throws TmException {
        if (conflictsSince > txId) {
            throw new TmException("Commit of " + txId + " asks for conflicts since " + conflictsSince
                    + ", after its own start; a replay validates from the earlier transaction's start");
        }
        boolean loadCommit = tablesTo > tablesFrom && tableIds[tablesFrom] == BULK_LOAD_COMMIT;
        if (loadCommit) {
            // Only a load this TM holds commits as one: after its lease ran out or a failover, it holds nothing
            // (writers may have committed into the load's window), so the load must not commit at all.
            if (!loads.isLoad(txId) || !open.isOpen(txId)) {
                return EXPIRED;
            }
        } else if (conflictsSince < lowWaterMark.get() || conflictsSince <= oracle.epochBase()) {
            // The conflict history a transaction needs starts at conflictsSince: below the mark it may be gone. (A
            // held load writes no rows, so it needs none: a long load is not aborted by conflict-table eviction.)
            // At or below the epoch base it began under an earlier primary, whose history is not here: the mark
            // starts at that base, and the earlier primary may have issued the base itself.
            return BELOW_LOW_WATER_MARK;
        }
        // An expired transaction no longer holds the GC horizon: what it read may be gone, and its cells may be
        // collected as aborted. It must not commit.
        if (!open.isOpen(txId)) {
            return EXPIRED;
        }
        // Marked before the commit timestamp is drawn: see DecisionLog.
        decisions.deciding(txId);
        long outcome = CONFLICT;
        try {
            outcome = decide(txId, conflictsSince, keys, tableIds, tablesFrom, tablesTo);
            return outcome;
        } finally {
            if (outcome > 0) {
                decisions.decided(txId, outcome);
            } else {
                decisions.abandoned(txId);
            }
        }
    }

    private void checkWriteSetSize(int rows) throws TmException {
        if (rows > config.maxWriteSet()) {
            throw new TmException("Write set of " + rows + " rows exceeds " + TmConfig.MAX_WRITE_SET
                    + "=" + config.maxWriteSet() + "; split the transaction or raise the limit");
        }
    }

    private long decide(long txId, long conflictsSince, ConflictKeys keys, long[] tableIds, int tablesFrom,
                        int tablesTo) throws TmException {
        if (loads.isLoad(txId)) {
            return decideLoad(txId, conflictsSince, keys, tableIds, tablesFrom, tablesTo);
        }
        long commitTs;
        try {
            long stamp = fenceOrder.tryOptimisticRead();
            if (stamp != 0) {
                if (fences.blocks(txId, tableIds, tablesFrom, tablesTo)) {
                    return fenced(conflictsSince, keys); // a fence once seen is real: no need to validate
                }
                if (loads.blocks(txId, tableIds, tablesFrom, tablesTo, isOpen)) {
                    return fenced(conflictsSince, keys); // a bulk load holds the table: a fence until it ends
                }
                if (conflictsSince < txId && loads.committedAfter(conflictsSince, tableIds, tablesFrom, tablesTo)) {
                    return CONFLICT; // a replay of writes computed before a bulk load of their table committed
                }
                commitTs = oracle.next();
                if (!fenceOrder.validate(stamp)) {
                    commitTs = 0; // a fence was taken meanwhile: this timestamp is discarded, never used
                }
            } else {
                commitTs = 0;
            }
            if (commitTs == 0) {
                stamp = fenceOrder.readLock();
                try {
                    if (fences.blocks(txId, tableIds, tablesFrom, tablesTo)) {
                        return fenced(conflictsSince, keys);
                    }
                    if (loads.blocks(txId, tableIds, tablesFrom, tablesTo, isOpen)) {
                        return fenced(conflictsSince, keys); // a bulk load holds the table: a fence until it ends
                    }
                    if (conflictsSince < txId
                            && loads.committedAfter(conflictsSince, tableIds, tablesFrom, tablesTo)) {
                        return CONFLICT;
                    }
                    commitTs = oracle.next();
                } finally {
                    fenceOrder.unlockRead(stamp);
                }
            }
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        }
        long refused = recordWrites(conflictsSince, keys, commitTs);
        if (refused != 0) {
            return refused;
        }
        // Checked last: a primary paused anywhere above must not let a commit out after its lease ran out.
        if (!lease.isHeld()) {
            return LEASE_LOST;
        }
        return commitTs;
    }

    /**
     * A write-write conflict is reported first: it is the abort no retry of these same writes can get past, and
     * Phoenix replays a fenced transaction's writes (validated from conflictsSince anyway).
     */
    private long fenced(long conflictsSince, ConflictKeys keys) {
        return conflicts.conflicts(conflictsSince, keys) ? CONFLICT : FENCE;
    }

    /** Checks the write set from {@code conflictsSince} and records it at {@code commitTs}: 0, or the abort. */
    private long recordWrites(long conflictsSince, ConflictKeys keys, long commitTs) {
        switch (conflicts.checkAndRecord(conflictsSince, keys, commitTs)) {
            case CONFLICT:
                return CONFLICT;
            case NO_ROOM:
                return CONFLICT_HISTORY_FULL;
            default:
                return 0;
        }
    }

    /**
     * A bulk load's commit, under the write side of the fence order: no commit draws a timestamp meanwhile, so the
     * load's commit timestamp and its fences on its tables are one step. A fence taken on one of its tables after it
     * began (an index created meanwhile has none of the load's rows) aborts it.
     */
    private long decideLoad(long txId, long conflictsSince, ConflictKeys keys, long[] tableIds, int tablesFrom,
                            int tablesTo) throws TmException {
        long[] held = loads.tablesOf(txId);
        long stamp = fenceOrder.writeLock();
        try {
            if (fences.blocks(txId, held) || fences.blocks(txId, tableIds, tablesFrom, tablesTo)) {
                return fenced(conflictsSince, keys);
            }
            long commitTs = oracle.next();
            // (The load's own conflict window is empty: it writes no rows, and its hold kept every writer out.)
            long refused = recordWrites(conflictsSince, keys, commitTs);
            if (refused != 0) {
                return refused;
            }
            java.util.Set<Long> loaded = new java.util.TreeSet<>();
            for (long tableId : held) {
                loaded.add(tableId);
            }
            for (int i = tablesFrom; i < tablesTo; i++) {
                if (tableIds[i] != BULK_LOAD_COMMIT) {
                    loaded.add(tableIds[i]);
                }
            }
            for (long tableId : loaded) {
                fences.add(tableId, commitTs);
            }
            if (!lease.isHeld()) {
                return LEASE_LOST;
            }
            loads.committed(loaded.stream().mapToLong(Long::longValue).toArray(), commitTs);
            return commitTs;
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        } finally {
            loads.release(txId);
            fenceOrder.unlockWrite(stamp);
        }
    }

    /**
     * Begins a bulk load ({@link TransactionManager#beginBulkLoad}) under the write side of the fence order, so a
     * commit that checked the holds before it draws its timestamp below the load's start.
     */
    @Override
    public long beginBulkLoad(long[] tableIds) throws TmException {
        checkServing();
        long stamp = fenceOrder.writeLock();
        try {
            long txId = open.issueAndRegister(lastIssued, draw);
            try {
                loads.hold(txId, tableIds, isOpen);
            } catch (TmException | RuntimeException e) {
                open.finish(txId);
                throw e;
            }
            metrics.began(1);
            return txId;
        } catch (LostPrimacyException e) {
            stop(e.getMessage());
            throw e;
        } finally {
            fenceOrder.unlockWrite(stamp);
        }
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
        long stamp = fenceOrder.writeLock();
        try {
            // The index population reads at the fence: it holds the GC horizon until the client finishes it.
            long fenceTs = open.issueAndRegister(lastIssued, draw);
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
            fenceOrder.unlockWrite(stamp);
        }
    }

    @Override
    public long lowWaterMark() throws TmException {
        checkServing();
        return lowWaterMark.get();
    }

    @Override
    public void finished(long[] txIds) throws TmException {
        finished(txIds, 0, txIds.length);
    }

    @Override
    public void finished(long[] txIds, int from, int to) throws TmException {
        checkServing();
        for (int i = from; i < to; i++) {
            open.finish(txIds[i]);
        }
    }

    /**
     * No fence is being taken (a commit would wait for its persistence) and the timestamp reservation has room
     * for {@code timestamps} more plus a millisecond's worth (a new reservation is a storage round trip).
     */
    @Override
    public boolean decidesWithoutWaiting(int timestamps) {
        return !fenceOrder.isWriteLocked() && oracle.hasRoomFor(timestamps);
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

    /**
     * What this TM is doing, for operators ({@code bin/phoenix-txn-admin status} and {@code transactions}): a
     * consistent-enough snapshot read without stopping any request; at most {@code maxListed} open transactions are
     * listed, oldest first.
     */
    public TmStatus status(int maxListed) {
        long gcHorizon;
        try {
            gcHorizon = horizon().gc();
        } catch (TmException e) {
            gcHorizon = Horizon.UNKNOWN.gc();
        }
        return new TmStatus(stoppedBecause, lease.isHeld(), oracle.epochBase(), oracle.last(), lowWaterMark.get(),
                gcHorizon, open.size(), open.oldest(maxListed), fences.snapshot(), conflicts.capacity(),
                System.currentTimeMillis());
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

    /** Conflict-table entries in use (they are never freed, only overwritten). */
    public long conflictTableOccupied() {
        return conflicts.occupied();
    }

    /** Conflict-table entries overwritten by a newer row since this TM started. */
    public long conflictTableEvictions() {
        return conflicts.evictions();
    }

    /** The low-water mark, whether or not this TM serves (monitoring; {@link #lowWaterMark()} answers clients). */
    public long currentLowWaterMark() {
        return lowWaterMark.get();
    }

    /** Whether this TM's lease is held now (monitoring). */
    public boolean leaseHeld() {
        return lease.isHeld();
    }

    /** What this TM counted (shared with the other terms of its process when it was given one). */
    public TmMetrics metrics() {
        return metrics;
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
