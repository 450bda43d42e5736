package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A TM whose {@code begin} can be made to hang, as a paused or wedged primary would. */
final class BlockingTm implements TransactionManager {
    private final TransactionManager delegate;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile boolean blocking;

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
        delegate.close();
    }
}
