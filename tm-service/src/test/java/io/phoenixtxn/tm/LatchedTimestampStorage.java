package io.phoenixtxn.tm;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * In-memory timestamp storage whose next compare-and-set, once armed, holds until the test opens it: a commit that
 * needs a new epoch then waits as it would on a slow ZooKeeper write.
 */
final class LatchedTimestampStorage implements TimestampStorage {
    private final InMemoryTimestampStorage delegate = new InMemoryTimestampStorage();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);
    private volatile boolean armed;

    /** The next compare-and-set blocks until {@link #open()}. */
    void arm() {
        armed = true;
    }

    void open() {
        armed = false;
        open.countDown();
    }

    boolean awaitBlockedWrite(long timeout, TimeUnit unit) throws InterruptedException {
        return entered.await(timeout, unit);
    }

    @Override
    public long getMaxTimestamp() throws TmException {
        return delegate.getMaxTimestamp();
    }

    @Override
    public boolean compareAndSet(long expected, long newMax) throws TmException {
        if (armed) {
            entered.countDown();
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TmException("interrupted while the test held the timestamp storage", e);
            }
        }
        return delegate.compareAndSet(expected, newMax);
    }
}
