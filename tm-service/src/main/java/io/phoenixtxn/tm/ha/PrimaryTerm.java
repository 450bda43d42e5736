package io.phoenixtxn.tm.ha;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.LostPrimacyException;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One stretch of time during which this process is primary: from the lease's acquisition to its loss or release.
 * Owns what only a primary has: the TM core (new epoch, raised low-water mark, loaded fences), the listening server
 * and the advertisement. A term never restarts; the next acquisition starts a new one with fresh state.
 */
final class PrimaryTerm {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryTerm.class);

    private final ZooKeeperLease lease;
    private final Executor housekeeping;
    private final long reservationHeadroomUnits;
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private final AtomicBoolean extending = new AtomicBoolean();
    private final AtomicBoolean torndown = new AtomicBoolean();
    private volatile TransactionManagerCore core;
    private volatile TmServer server;
    private volatile PrimaryAdvertiser advertiser;
    private volatile TmEndpoint endpoint;
    /** How long each step of {@link #begin} took, for the takeover log line. */
    private volatile String startupTimes = "";

    private PrimaryTerm(ZooKeeperLease lease, Executor housekeeping, TmConfig tmConfig) {
        this.lease = lease;
        this.housekeeping = housekeeping;
        this.reservationHeadroomUnits = tmConfig.timestampReservationMs() * TimestampLayout.UNITS_PER_MILLI / 2;
    }

    /**
     * Starts serving under {@code lease}: renewals first (starting the TM takes ZooKeeper round trips the lease must
     * outlive), then the TM, its server, and the advertisement clients discover it by.
     */
    static PrimaryTerm begin(ZooKeeperLease lease, CuratorFramework zk, HaConfig haConfig, TmConfig tmConfig,
                             TmServerConfig serverConfig, HaSeams seams, Executor housekeeping) throws TmException {
        PrimaryTerm term = new PrimaryTerm(lease, housekeeping, tmConfig);
        lease.startRenewing(term::renewed, term::lost);
        try {
            long started = System.nanoTime();
            ZkPaths paths = haConfig.paths();
            TransactionManagerCore tm = TransactionManagerCore.start(tmConfig, seams.wallClock(),
                    new ZooKeeperTimestampStorage(zk, paths), new ZooKeeperFenceStore(zk, paths), lease,
                    seams.metrics());
            term.core = tm;
            if (term.ended.isDone()) {
                // Lost while starting: the loss callback ran before there was a core to stop.
                tm.stop(term.ended.join());
                throw new TmException("Lost the lease while starting as primary: " + term.ended.join());
            }
            long coreReady = System.nanoTime();
            term.server = TmServer.start(tm, serverConfig);
            term.endpoint = new TmEndpoint(advertisedHost(haConfig, term.server.address()),
                    term.server.address().getPort(), tm.epochBase());
            long serverReady = System.nanoTime();
            term.advertiser = new PrimaryAdvertiser(zk, paths.primary(), lease::isHeld, housekeeping);
            term.advertiser.publish(term.endpoint);
            long advertised = System.nanoTime();
            term.startupTimes = "TM core (epoch reservation, fences) " + millis(coreReady - started) + " ms, server "
                    + millis(serverReady - coreReady) + " ms, advertisement " + millis(advertised - serverReady) + " ms";
            return term;
        } catch (TmException | RuntimeException e) {
            term.end("could not start serving as primary: " + e.getMessage(), true);
            throw e;
        }
    }

    private static long millis(long nanos) {
        return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /**
     * For the takeover log line: how long this holder waited after it last saw the lease change before taking it
     * (about one lease period after the previous primary died), and how long each step of becoming primary took.
     */
    String takeoverSummary() {
        return "took the lease " + lease.takeoverWaitMs() + " ms after it last saw it change; " + startupTimes;
    }

    TmEndpoint endpoint() {
        return endpoint;
    }

    TmServer server() {
        return server;
    }

    TransactionManagerCore core() {
        return core;
    }

    boolean isServing() {
        TransactionManagerCore tm = core;
        return !ended.isDone() && tm != null && tm.isServing() && lease.isHeld();
    }

    /** Blocks until the term ends by itself (lease lost, primacy lost); returns why. */
    String awaitEnd() throws InterruptedException {
        try {
            return ended.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the term future is only ever completed normally", e);
        }
    }

    /**
     * Stops serving: the TM first (so nothing more is decided), then the server and the advertisement; then
     * releases the lease (graceful shutdown: a backup takes over at once) or just stops renewing it (after a loss).
     */
    void end(String reason, boolean releaseLease) {
        ended.complete(reason);
        if (!torndown.compareAndSet(false, true)) {
            return;
        }
        TransactionManagerCore tm = core;
        if (tm != null) {
            tm.stop(reason);
        }
        if (releaseLease) {
            // Before anything slow: isHeld() turns false at once, so an in-flight commit aborts LEASE_LOST.
            lease.close();
        }
        TmServer srv = server;
        if (srv != null) {
            srv.close();
        }
        PrimaryAdvertiser adv = advertiser;
        if (adv != null) {
            adv.close();
        }
        if (releaseLease) {
            lease.release();
        } else {
            lease.close();
        }
    }

    private void lost(String reason) {
        TransactionManagerCore tm = core;
        if (tm != null) {
            tm.stop(reason);
        }
        ended.complete(reason);
    }

    /** Between renewals, keep the timestamp reservation ahead so that begin rarely waits for ZooKeeper. */
    private void renewed() {
        TransactionManagerCore tm = core;
        if (tm == null || !extending.compareAndSet(false, true)) {
            return;
        }
        housekeeping.execute(() -> {
            try {
                tm.oracle().extendIfBelow(reservationHeadroomUnits);
            } catch (LostPrimacyException e) {
                lost(e.getMessage());
            } catch (TmException e) {
                LOG.warn("Could not extend the timestamp reservation ahead of time (the next begin will): {}",
                        e.getMessage());
            } finally {
                extending.set(false);
            }
        });
    }

    private static String advertisedHost(HaConfig config, InetSocketAddress bound) throws TmException {
        if (config.advertisedHost() != null) {
            return config.advertisedHost();
        }
        if (bound.getAddress() != null && !bound.getAddress().isAnyLocalAddress()) {
            return bound.getHostString();
        }
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (UnknownHostException e) {
            throw new TmException("The TM listens on every interface and this host's name cannot be resolved; set "
                    + HaConfig.ADVERTISED_HOST + " to the name clients should dial", e);
        }
    }
}
