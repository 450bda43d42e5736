package io.phoenixtxn.tm.ha;

import java.util.concurrent.CountDownLatch;

/**
 * A monotonic clock that simulates a process pause (a long garbage collection, SIGSTOP): while paused, every thread
 * that reads it blocks, as if the process were frozen; after {@link #resume()} it reads the real time again, which
 * moved on by the length of the pause. The pause can also start exactly when one thread makes its n-th read, to stop a
 * commit between its first lease check and its last one.
 */
final class PausableClock implements MonotonicClock {
    private volatile CountDownLatch pause;
    private volatile CountDownLatch paused = new CountDownLatch(1);
    private volatile Thread trigger;
    private int triggerReads;

    @Override
    public long nanos() {
        if (trigger == Thread.currentThread() && --triggerReads == 0) {
            trigger = null;
            pauseNow();
        }
        CountDownLatch current = pause;
        if (current != null) {
            try {
                current.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return System.nanoTime();
    }

    /** Every later read blocks until {@link #resume()}. */
    synchronized void pauseNow() {
        if (pause == null) {
            pause = new CountDownLatch(1);
            paused.countDown();
        }
    }

    /** Pauses the moment {@code thread} makes its {@code nthRead}-th read from now on (that read blocks too). */
    synchronized void pauseOnRead(Thread thread, int nthRead) {
        triggerReads = nthRead;
        trigger = thread;
    }

    /** Waits until the pause began. */
    void awaitPaused() throws InterruptedException {
        paused.await();
    }

    synchronized void resume() {
        CountDownLatch current = pause;
        pause = null;
        paused = new CountDownLatch(1);
        if (current != null) {
            current.countDown();
        }
    }
}
