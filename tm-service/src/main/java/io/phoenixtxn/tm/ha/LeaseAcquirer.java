package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.api.CuratorWatcher;

import java.util.OptionalInt;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How a backup becomes primary (Apache Omid's lease protocol, driven by a watch instead of a fixed sleep).
 *
 * <p>The backup takes the lease only after it has seen the same znode version for a full lease period by its own
 * monotonic clock, and then only by a compare-and-set on that version. Why this is safe: the primary measures its
 * lease from the moment it <em>sent</em> the renewal that produced version v; the backup starts counting only after
 * it <em>read</em> v, which is later; so when the backup's period ends, the primary's period ended before (clocks
 * advancing at about the same rate, as in FAST'17 sec. 6.3). If the primary renewed meanwhile, the version moved and
 * the compare-and-set fails. Watching the node (rather than sleeping a full period after every read, as Omid does)
 * only changes when the backup looks again: a failover takes at most one period after the primary's last renewal
 * instead of up to two.
 *
 * <p>A released lease (empty holder) is taken at once: its last holder stopped serving before it released it.
 */
final class LeaseAcquirer {
    private final LeaseNode node;
    private final String holderId;
    private final long periodNanos;
    private final MonotonicClock clock;

    LeaseAcquirer(LeaseNode node, String holderId, long periodMs, MonotonicClock clock) {
        this.node = node;
        this.holderId = holderId;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
        this.clock = clock;
    }

    /** Blocks until this process holds the lease; returns the lease's znode version and when it was taken. */
    Acquired acquire() throws InterruptedException, TmException {
        Semaphore changed = new Semaphore(0);
        CuratorWatcher watcher = event -> changed.release();
        LeaseNode.State observed = null;
        long observedAt = 0;
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("stopped contending for the lease at " + node.path());
            }
            changed.drainPermits();
            LeaseNode.State state = node.read(watcher);
            long now = clock.nanos();
            if (!state.equals(observed)) {
                // A write we had not seen (a renewal, a new holder): the period starts over from this read.
                observed = state;
                observedAt = now;
            }
            long waitNanos = observedAt + periodNanos - now;
            if (!state.isReleased() && waitNanos > 0) {
                // A wake-up by the watch means the holder renewed (or the connection changed): look again.
                changed.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
                continue;
            }
            long sentAt = clock.nanos();
            OptionalInt version = node.compareAndSet(observed.version(), holderId);
            if (version.isPresent()) {
                return new Acquired(version.getAsInt(), sentAt, observedAt);
            }
        }
    }

    /**
     * The lease's znode version after acquisition, the local time the acquiring write was sent, and when this
     * contender last saw the lease node change before it (the previous holder's last renewal as seen here, or its
     * release): their difference is the takeover's wait, about one period after a holder died.
     */
    record Acquired(int version, long sentAtNanos, long lastChangeSeenAtNanos) {
    }
}
