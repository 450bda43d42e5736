package io.phoenixtxn.client;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The client half of the GC horizon: every transaction this client began holds the TM's horizon until the client
 * says it ended (commit, rollback, read-only end: batched {@code finished} messages) or stops renewing it (a crashed
 * client's transactions expire after the TM's lease). Open transactions older than the keep-alive interval are
 * renewed; the ones the TM answers it no longer holds are marked expired, and their reads fail as "snapshot too old"
 * before they reach a region server. A transaction the application drops without ending it (garbage-collected) is
 * finished by a {@link Cleaner}, so a leak does not pin the horizon for the client's lifetime.
 */
final class OpenTransactionTracker {
    private static final Logger LOG = LoggerFactory.getLogger(OpenTransactionTracker.class);
    private static final Cleaner LEAKS = Cleaner.create();
    /** A batch of finished ids this large is sent at once instead of waiting for the next flush. */
    private static final int FLUSH_AT = 512;

    /** What the tracker knows of one open transaction; shared with the {@link Transaction} (never references it). */
    static final class Lease {
        final long txId;
        final long beganNanos;
        volatile boolean expired;
        private volatile boolean ended;
        /**
         * Past this (local monotonic time) the TM may have let the transaction go without this client knowing: the
         * last renewal the TM acknowledged was sent before {@code validUntil + lease - margin}.
         */
        private volatile long validUntilNanos;
        /** False once whoever uses the transaction is gone (a closed connection): it is ended, not renewed. */
        private volatile BooleanSupplier ownerAlive = () -> true;

        Lease(long txId, long beganNanos, long validUntilNanos) {
            this.txId = txId;
            this.beganNanos = beganNanos;
            this.validUntilNanos = validUntilNanos;
        }

        boolean isExpired() {
            return expired || System.nanoTime() - validUntilNanos > 0;
        }
    }

    private final Supplier<TransactionManager> tm;
    private final long keepAliveNanos;
    /** The TM's lease minus a margin for clock-rate drift and the renewal's own trip (see {@link Lease}). */
    private final long validForNanos;
    private final Map<Long, Lease> open = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> finished = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();

    OpenTransactionTracker(Supplier<TransactionManager> tm, long keepAliveMillis) {
        this(tm, keepAliveMillis, Long.MAX_VALUE / 4_000_000L);
    }

    /** @param leaseMillis the TM's transaction lease (phoenix.txn.tm.transaction.lease.ms) */
    OpenTransactionTracker(Supplier<TransactionManager> tm, long keepAliveMillis, long leaseMillis) {
        this.tm = tm;
        this.keepAliveNanos = keepAliveMillis * 1_000_000L;
        long lease = leaseMillis * 1_000_000L;
        this.validForNanos = lease - Math.min(lease / 10, 5_000_000_000L);
    }

    /** Starts tracking a transaction this client began (or a fence it populates at). */
    Transaction track(Transaction tx) {
        long now = System.nanoTime();
        Lease lease = new Lease(tx.txId(), now, now + validForNanos);
        open.put(tx.txId(), lease);
        tx.attachLease(lease);
        LEAKS.register(tx, () -> end(lease)); // runs only if the transaction was dropped without ending
        return tx;
    }

    /** The transaction ended on this client: it stops holding the horizon (idempotent). */
    void ended(Transaction tx) {
        Lease lease = tx.lease();
        if (lease != null) {
            end(lease);
        }
    }

    private void end(Lease lease) {
        if (lease.ended) {
            return;
        }
        lease.ended = true;
        open.remove(lease.txId, lease);
        finished.add(lease.txId);
        if (queued.incrementAndGet() >= FLUSH_AT) {
            flushFinished();
        }
    }

    /** Sends the queued finished ids (a background task calls it often; also at close). */
    void flushFinished() {
        List<Long> batch = new ArrayList<>();
        for (Long id; (id = finished.poll()) != null; ) {
            batch.add(id);
            queued.decrementAndGet();
        }
        if (batch.isEmpty()) {
            return;
        }
        try {
            tm.get().finished(batch.stream().mapToLong(Long::longValue).toArray());
        } catch (TmException | RuntimeException e) {
            // Harmless: the TM lets them go when their leases run out.
            LOG.debug("Could not tell the TM that {} transactions ended ({}); their leases run out instead",
                    batch.size(), e.getMessage());
        }
    }

    /**
     * Whoever uses the transaction (a Phoenix connection) tells whether it still does: Phoenix closes connections
     * without rolling back, so an open transaction of a closed connection is ended here instead of renewed forever.
     */
    static void ownedBy(Transaction tx, BooleanSupplier ownerAlive) {
        Lease lease = tx.lease();
        if (lease != null) {
            lease.ownerAlive = ownerAlive;
        }
    }

    /**
     * Renews open transactions older than the keep-alive interval; marks the ones the TM let expire; ends the ones
     * whose owner is gone.
     */
    void keepAlive() {
        long now = System.nanoTime();
        List<Lease> due = new ArrayList<>();
        for (Lease lease : open.values()) {
            if (!lease.ownerAlive.getAsBoolean()) {
                end(lease);
            } else if (now - lease.beganNanos >= keepAliveNanos) {
                due.add(lease);
            }
        }
        if (due.isEmpty()) {
            return;
        }
        long[] ids = due.stream().mapToLong(l -> l.txId).toArray();
        long[] expired;
        try {
            expired = tm.get().keepAlive(ids);
        } catch (TmException | RuntimeException e) {
            LOG.warn("Could not renew {} open transactions with the TM ({}); they expire after"
                    + " phoenix.txn.tm.transaction.lease.ms without a renewal", ids.length, e.getMessage());
            return;
        }
        long renewedUntil = now + validForNanos; // "now" was taken before the request left
        java.util.Set<Long> lost = new java.util.HashSet<>();
        for (long id : expired) {
            lost.add(id);
            Lease lease = open.remove(id);
            if (lease != null) {
                lease.expired = true;
                LOG.warn("Transaction {} expired at the TM (its lease ran out): its reads and commit now fail as"
                        + " snapshot too old", id);
            }
        }
        for (Lease lease : due) {
            if (!lost.contains(lease.txId)) {
                lease.validUntilNanos = renewedUntil;
            }
        }
    }

    int openCount() {
        return open.size();
    }
}
