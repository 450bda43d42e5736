package io.phoenixtxn.coprocessor.fastpath;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bootstrap of one region opened on this server (VLDB'18 sec. 4.3): before its first fast-path write it takes a
 * fresh TM timestamp and bumps the server's clock to it. The region's versions were written by clocks of servers that
 * held it before (a move, a split or merge, a crash), all inside slots the TM issued before this open; a timestamp the
 * TM issues after the open is above every one of them, so the region's versions never go backwards.
 *
 * <p>Started when the region opens, in the background; retried at most every {@link #RETRY_MS} while no TM answers.
 * {@link #at()} is also the region's lower bound for the fast-path versions written before it ({@link FastPathRegion}).
 */
final class RegionBootstrap {
    static final long RETRY_MS = 1_000;

    private final LocalVersionClock clock;
    private final TimestampSource source;
    private final AtomicReference<CompletableFuture<Long>> attempt = new AtomicReference<>();
    private volatile long at = -1;
    private volatile long retryAfterNanos = System.nanoTime();

    RegionBootstrap(LocalVersionClock clock, TimestampSource source) {
        this.clock = clock;
        this.source = source;
    }

    /** The fresh timestamp the region bootstrapped with, or -1 while it has not. */
    long at() {
        return at;
    }

    /** Starts an attempt unless one runs, or failed less than {@link #RETRY_MS} ago. Never blocks. */
    void start() {
        if (at >= 0) {
            return;
        }
        CompletableFuture<Long> current = attempt.get();
        if (current != null && (!current.isDone() || System.nanoTime() - retryAfterNanos < 0)) {
            return;
        }
        CompletableFuture<Long> next = new CompletableFuture<>();
        if (!attempt.compareAndSet(current, next)) {
            return;
        }
        CompletableFuture<Long> fresh;
        try {
            fresh = source.fresh();
        } catch (RuntimeException e) {
            fresh = CompletableFuture.failedFuture(e);
        }
        fresh.whenComplete((ts, failure) -> {
            if (failure == null) {
                clock.bump(ts);
                at = ts; // after the bump: whoever sees the region bootstrapped draws above ts
                clock.refill();
                next.complete(ts);
            } else {
                retryAfterNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MS);
                next.completeExceptionally(failure);
            }
        });
    }

    /** True once bootstrapped; starts an attempt and waits for it up to {@code waitMs}. */
    boolean await(long waitMs) {
        if (at >= 0) {
            return true;
        }
        start();
        CompletableFuture<Long> current = attempt.get();
        if (current == null || waitMs <= 0) {
            return at >= 0;
        }
        try {
            current.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return at >= 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return at >= 0;
    }
}
