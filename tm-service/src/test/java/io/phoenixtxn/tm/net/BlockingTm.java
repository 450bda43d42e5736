package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A TM whose {@code begin} can be made to hang, as a paused or wedged primary would, and whose pending-status
 * answers can be held, as a decision in progress (or a wedged primary) holds them.
 */
final class BlockingTm implements TransactionManager {
    private final TransactionManager delegate;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CompletableFuture<PendingStatus> heldStatus = new CompletableFuture<>();
    private volatile boolean blocking;
    private volatile boolean holdingStatus;

    BlockingTm(TransactionManager delegate) {
        this.delegate = delegate;
    }

    /** From now on, begin() hangs until {@link #release()}. */
    void blockBegins() {
        blocking = true;
    }

    void release() {
        blocking = false;
        release.countDown();
    }

    /** From now on, pending-status questions get no answer until {@link #answerHeldStatus}. */
    void holdStatusAnswers() {
        holdingStatus = true;
    }

    /** Answers every held pending-status question (and later ones) with {@code status}. */
    void answerHeldStatus(PendingStatus status) {
        heldStatus.complete(status);
    }

    /** Waits until a begin() is hanging on the server. */
    boolean awaitBlockedBegin(long timeout, TimeUnit unit) throws InterruptedException {
        return entered.await(timeout, unit);
    }

    @Override
    public long begin() throws TmException {
        if (blocking) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TmException("interrupted while blocked", e);
            }
        }
        return delegate.begin();
    }

    @Override
    public CompletableFuture<PendingStatus> pendingStatusAsync(long writerTxId, long readerTxId) {
        return holdingStatus ? heldStatus : delegate.pendingStatusAsync(writerTxId, readerTxId);
    }

    @Override
    public PendingStatus pendingStatus(long writerTxId, long readerTxId) throws TmException {
        if (!holdingStatus) {
            return delegate.pendingStatus(writerTxId, readerTxId);
        }
        try {
            return heldStatus.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TmException("interrupted while the answer was held", e);
        } catch (ExecutionException e) {
            throw new TmException("the held answer failed", e);
        }
    }

    @Override
    public CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            throws TmException {
        return delegate.commit(txId, conflictsSince, rowHashes, tableIds);
    }

    @Override
    public long fence(long tableId) throws TmException {
        return delegate.fence(tableId);
    }

    @Override
    public long lowWaterMark() throws TmException {
        return delegate.lowWaterMark();
    }

    @Override
    public void close() {
        release();
        answerHeldStatus(PendingStatus.unknown());
        delegate.close();
    }
}
