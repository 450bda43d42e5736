package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The primary's lease in ZooKeeper (FAST'17 sec. 6.3). It is held for one lease period from the moment a successful
 * renewal was <em>sent</em>, by the local monotonic clock; a scheduler renews it at 80% of the period (the paper's
 * guard period is the other 20%). The TM checks {@link #isHeld()} before every decision leaves the process, so a
 * primary paused past its lease commits nothing afterwards: after the pause its own clock says the lease ran out.
 *
 * <p>Renewal is a compare-and-set on the version of this holder's last write. If it finds another write, another TM
 * took over and the lease is lost for good: the {@code onLost} callback halts the TM. A renewal that succeeds late is
 * still sound (no one else wrote in between) and the primary goes on after a moment of answering "not primary";
 * one that cannot be confirmed within two periods counts as lost. See {@link LeaseAcquirer} for why a backup cannot
 * take the lease while it is held.
 */
public final class ZooKeeperLease implements Lease, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLease.class);
    /** Renew when this fraction of the period has passed since the last renewal was sent. */
    private static final double RENEW_AT = 0.8;

    private final LeaseNode node;
    private final String holderId;
    private final long periodNanos;
    private final MonotonicClock clock;
    private final ScheduledExecutorService renewer;
    /** Only the renewer thread writes these two after construction. */
    private volatile int version;
    private volatile long renewedAtNanos;
    /** From the last change this holder saw of the lease node to its acquiring write (see takeoverWaitMs). */
    private final long takeoverWaitNanos;
    private volatile String lostBecause;
    private volatile boolean stopped;
    private volatile Runnable onRenewed = () -> { };
    private volatile Consumer<String> onLost = reason -> { };
    private volatile Thread renewerThread;
    private final AtomicBoolean released = new AtomicBoolean();

    private ZooKeeperLease(LeaseNode node, String holderId, long periodMs, MonotonicClock clock,
                           LeaseAcquirer.Acquired acquired) {
        this.node = node;
        this.holderId = holderId;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
        this.clock = clock;
        this.version = acquired.version();
        this.renewedAtNanos = acquired.sentAtNanos();
        this.takeoverWaitNanos = acquired.sentAtNanos() - acquired.lastChangeSeenAtNanos();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = new Thread(runnable, "tm-lease-renewer");
            t.setDaemon(true);
            renewerThread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.renewer = executor;
    }

    /**
     * Blocks until this process holds the lease at {@code path} (interrupt the thread to give up). Renewal starts
     * with {@link #startRenewing}, which the caller must call at once.
     */
    public static ZooKeeperLease acquire(CuratorFramework zk, String path, String holderId, long periodMs,
                                         MonotonicClock clock) throws InterruptedException, TmException {
        if (holderId.isEmpty()) {
            throw new IllegalArgumentException("holder id must not be empty (empty means released)");
        }
        LeaseNode node = new LeaseNode(zk, path);
        LeaseAcquirer.Acquired acquired = new LeaseAcquirer(node, holderId, periodMs, clock).acquire();
        return new ZooKeeperLease(node, holderId, periodMs, clock, acquired);
    }

    /**
     * Starts the renewal schedule. {@code onRenewed} runs after every successful renewal (on the renewer thread:
     * keep it short); {@code onLost} runs once, after {@link #isHeld()} already answers false, with the reason.
     */
    public void startRenewing(Runnable onRenewed, Consumer<String> onLost) {
        this.onRenewed = Objects.requireNonNull(onRenewed);
        this.onLost = Objects.requireNonNull(onLost);
        scheduleNext(renewedAtNanos);
    }

    /**
     * How long this holder waited, when it took the lease, after it last saw the lease change: about one period when
     * the previous holder died (it stopped renewing), near 0 when the lease had been released. For the takeover log.
     */
    public long takeoverWaitMs() {
        return TimeUnit.NANOSECONDS.toMillis(takeoverWaitNanos);
    }

    @Override
    public boolean isHeld() {
        return lostBecause == null && !stopped && clock.nanos() - renewedAtNanos < periodNanos;
    }

    /** Why the lease was lost, or null while it was not. */
    public String lostBecause() {
        return lostBecause;
    }

    public String holderId() {
        return holderId;
    }

    /**
     * Gives the lease up so a backup takes over at once instead of waiting a period. The caller must have stopped
     * serving first; {@link #isHeld()} answers false from the first line on, so nothing decided later goes out.
     */
    public void release() {
        stop();
        if (lostBecause != null || !released.compareAndSet(false, true)) {
            return;
        }
        try {
            if (node.compareAndSet(version, "").isEmpty() && !releaseAfterUnrecordedRenewal()) {
                LOG.warn("Could not release the lease at {}: another holder wrote it since this holder's last"
                        + " renewal", node.path());
            }
        } catch (TmException e) {
            LOG.warn("Could not release the lease at {}; a backup takes over when it expires: {}", node.path(),
                    e.getMessage());
        }
    }

    /**
     * Stopping the renewer interrupts a renewal in flight, whose write may still land: the node then moved past the
     * version this holder knows although nobody else wrote it, and a release at the known version fails (a backup
     * would wait out a whole lease period after a graceful shutdown). If the node still names this holder, no other
     * holder took it since, and the release applies to its current version.
     */
    private boolean releaseAfterUnrecordedRenewal() throws TmException {
        java.util.Optional<LeaseNode.State> now = node.peek();
        return now.isPresent() && now.get().holder().equals(holderId)
                && node.compareAndSet(now.get().version(), "").isPresent();
    }

    /** Stops renewing without releasing (the lease expires by itself); {@link #isHeld()} answers false. */
    @Override
    public void close() {
        stop();
    }

    /** Stops the renewer and waits for a renewal in flight (its version is needed to release). */
    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        renewer.shutdownNow();
        if (Thread.currentThread() == renewerThread) {
            return;
        }
        try {
            if (!renewer.awaitTermination(TimeUnit.NANOSECONDS.toMillis(periodNanos) + 1_000,
                    TimeUnit.MILLISECONDS)) {
                LOG.warn("The lease renewer did not stop within a lease period");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void scheduleNext(long lastSentAt) {
        if (stopped || lostBecause != null) {
            return;
        }
        long delay = Math.max(0, lastSentAt + (long) (periodNanos * RENEW_AT) - clock.nanos());
        try {
            renewer.schedule(this::renew, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // Stopped concurrently.
        }
    }

    /**
     * One renewal: a compare-and-set on the version of our last write. Success means nobody else wrote since, so
     * the lease is ours from this attempt's send time even if the answer came late (in between {@link #isHeld()}
     * said no, so nothing was decided). A version mismatch means another TM took over: lost at once. An unclear
     * outcome (connection loss, no answer) is retried until the lease has been expired for a whole further period:
     * by then a live backup has taken over, so holding on would only keep clients waiting.
     */
    private void renew() {
        long sentAt = clock.nanos();
        long giveUpAt = renewedAtNanos + 2 * periodNanos;
        boolean mayHaveApplied = false;
        CompletableFuture<LeaseNode.Outcome> attempt = null;
        while (!stopped) {
            if (attempt == null) {
                attempt = node.compareAndSetAsync(version, holderId);
            }
            long remaining = giveUpAt - clock.nanos();
            if (remaining <= 0) {
                lose("ZooKeeper at " + ZooKeeperClients.quorum(node.client()) + " did not confirm a lease renewal"
                        + " for " + TimeUnit.NANOSECONDS.toMillis(2 * periodNanos) + " ms (two lease periods)");
                return;
            }
            LeaseNode.Outcome outcome;
            try {
                outcome = attempt.get(remaining, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                lose("renewing the lease at " + node.path() + " failed: " + e.getCause());
                return;
            }
            attempt = null;
            switch (outcome.code()) {
                case OK -> {
                    renewed(outcome.stat().getVersion(), sentAt);
                    return;
                }
                case BADVERSION, NONODE -> {
                    if (mayHaveApplied && confirmOwnWrite(giveUpAt, sentAt)) {
                        return;
                    }
                    lose("another transaction manager took the lease at " + node.path() + " (this one was paused"
                            + " or cut off from ZooKeeper for longer than the lease)");
                    return;
                }
                case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> {
                    // The write may have been applied without us hearing back; sentAt stays the earliest send.
                    mayHaveApplied = true;
                    pauseBeforeRetry(giveUpAt);
                }
                default -> {
                    lose("renewing the lease at " + node.path() + " failed: " + outcome.code());
                    return;
                }
            }
        }
    }

    /**
     * After an ambiguous attempt, a version mismatch may be our own earlier write. It is ours if the node still
     * names this holder: a backup writes its own id, and only the holder renews.
     */
    private boolean confirmOwnWrite(long giveUpAt, long sentAt) {
        long remaining = giveUpAt - clock.nanos();
        if (remaining <= 0) {
            return false;
        }
        try {
            LeaseNode.Outcome read = node.readAsync().get(remaining, TimeUnit.NANOSECONDS);
            if (read.code() == KeeperException.Code.OK && holderId.equals(LeaseNode.decode(read.data()))) {
                renewed(read.stat().getVersion(), sentAt);
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Could not read back the lease at {}: {}", node.path(), e.toString());
        }
        return false;
    }

    private void renewed(int newVersion, long sentAt) {
        version = newVersion;
        renewedAtNanos = sentAt;
        try {
            onRenewed.run();
        } catch (RuntimeException e) {
            LOG.warn("Lease renewal callback failed", e);
        }
        scheduleNext(sentAt);
    }

    private void pauseBeforeRetry(long giveUpAt) {
        long sleepNanos = Math.min(periodNanos / 20, giveUpAt - clock.nanos());
        if (sleepNanos > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(sleepNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopped = true;
            }
        }
    }

    private void lose(String reason) {
        if (lostBecause != null || stopped) {
            return;
        }
        lostBecause = reason;
        LOG.error("Lost the transaction manager lease at {}: {}", node.path(), reason);
        renewer.shutdown();
        try {
            onLost.accept(reason);
        } catch (RuntimeException e) {
            LOG.error("Lease loss callback failed", e);
        }
    }
}
