package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmEndpoint;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A transaction manager that is primary or backup (FAST'17 sec. 6). Every instance contends for the ZooKeeper
 * lease; the holder starts a {@link TransactionManagerCore} on ZooKeeper timestamp and fence storage (a new epoch
 * above everything issued before, the low-water mark raised to it, every fence loaded), serves it with a
 * {@code TmServer} and advertises {@code host:port#epoch} for clients. Backups keep no listening socket (a backup's
 * one-off warm-up listens on an ephemeral loopback port for a moment, {@link TmWarmUp}).
 *
 * <p>When the lease is lost (a renewal failed, or this process was paused past it) the TM stops deciding at once,
 * closes its server, withdraws its advertisement, tells the {@link HaListener} and contends again as a backup with
 * fresh state. {@link #close()} is the graceful path: it stops serving and then releases the lease, so a backup
 * takes over without waiting a lease period.
 *
 * <p>One TM per cluster: {@link #start} first declares the cluster's TM deployment ({@link TmDeployment}), so that
 * from then on no client starts an embedded TM here, and every contention for the lease begins by waiting until no
 * embedded TM is registered (a JVM that chose one before the deployment existed). Declaring before looking is what
 * makes the pair of checks with the clients' airtight (see {@link TmDeployment}).
 */
public final class TmHaService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TmHaService.class);

    private final CuratorFramework zk;
    /** How long a process contends before it counts as a backup and warms up. */
    static final long WARM_UP_DELAY_MS = 1_000;
    /** How long close() waits for a warm-up term in progress (it closes its own server and core at its end). */
    static final long WARM_UP_JOIN_MS = 10_000;
    /** Set once this process took the lease: its first term then loads what the warm-up would. */
    private volatile boolean leaseTaken;
    private final TmConfig tmConfig;
    private final TmServerConfig serverConfig;
    private final HaConfig haConfig;
    private final HaSeams seams;
    private final TmDeployment deployment;
    private final String holderId;
    private final ExecutorService housekeeping;
    private final Thread contender;
    private final Thread warmUp;
    private final Object monitor = new Object();
    private boolean closed;
    private PrimaryTerm current;

    private TmHaService(CuratorFramework zk, TmConfig tmConfig, TmServerConfig serverConfig, HaConfig haConfig,
                        HaSeams seams) {
        this.zk = zk;
        this.tmConfig = tmConfig;
        this.serverConfig = serverConfig;
        this.haConfig = haConfig;
        this.seams = seams;
        this.deployment = new TmDeployment(zk, haConfig);
        this.holderId = newHolderId();
        this.housekeeping = Executors.newSingleThreadExecutor(daemon("tm-ha-housekeeping"));
        this.contender = daemon("tm-ha-contender").newThread(this::contend);
        this.warmUp = daemon("tm-warm-up").newThread(this::warmUpAsBackup);
    }

    public static TmHaService start(CuratorFramework zk, TmConfig tmConfig, TmServerConfig serverConfig,
                                    HaConfig haConfig) throws TmException {
        return start(zk, tmConfig, serverConfig, haConfig, HaSeams.defaults());
    }

    /**
     * Declares the cluster's TM deployment, then starts contending for primacy on an already started client and
     * returns at once; see {@link #awaitPrimary}. Fails within {@link HaConfig#ZK_CONNECT_TIMEOUT_MS} if ZooKeeper
     * cannot be reached.
     */
    public static TmHaService start(CuratorFramework zk, TmConfig tmConfig, TmServerConfig serverConfig,
                                    HaConfig haConfig, HaSeams seams) throws TmException {
        ZooKeeperClients.awaitConnected(zk, haConfig);
        TmHaService service = new TmHaService(zk, tmConfig, serverConfig, haConfig, seams);
        service.deployment.declare();
        LOG.info("Transaction manager {} contends for primacy at {}{} (lease {} ms)", service.holderId,
                ZooKeeperClients.quorum(zk), haConfig.basePath(), haConfig.leaseMs());
        service.contender.start();
        service.warmUp.start();
        return service;
    }

    /** The warm-up thread (tests: close() leaves none running). */
    Thread warmUpThread() {
        return warmUp;
    }

    /** This process's id in the lease node: host, pid and a random part. */
    public String holderId() {
        return holderId;
    }

    /** True while this process is the serving primary. */
    public boolean isPrimary() {
        PrimaryTerm term = currentTerm();
        return term != null && term.isServing();
    }

    /** Where this process serves, while it is primary. */
    public Optional<TmEndpoint> endpoint() {
        PrimaryTerm term = currentTerm();
        return term == null ? Optional.empty() : Optional.of(term.endpoint());
    }

    /** The TM this process runs while primary (in-process access for embedding and tests). */
    public Optional<TransactionManagerCore> transactionManager() {
        PrimaryTerm term = currentTerm();
        return term == null ? Optional.empty() : Optional.of(term.core());
    }

    /** The server this process runs while primary (monitoring). */
    public Optional<TmServer> server() {
        PrimaryTerm term = currentTerm();
        return term == null ? Optional.empty() : Optional.ofNullable(term.server());
    }

    /** Waits until this process is primary and returns where it serves. */
    public TmEndpoint awaitPrimary(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (monitor) {
            while (current == null) {
                long left = deadline - System.nanoTime();
                if (closed || left <= 0) {
                    throw new TimeoutException("Did not become primary within " + unit.toMillis(timeout) + " ms"
                            + (closed ? " (closed)" : ""));
                }
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
            return current.endpoint();
        }
    }

    /** Stops serving, releases the lease (so a backup takes over at once) and stops contending. */
    @Override
    public void close() {
        synchronized (monitor) {
            if (closed) {
                return;
            }
            closed = true;
            monitor.notifyAll();
        }
        contender.interrupt();
        try {
            contender.join(haConfig.leaseMs() + 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (contender.isAlive()) {
            LOG.warn("The HA contender thread did not stop; its lease expires by itself");
        }
        // after the lease is released: a warm-up still running only delays the return, not the handover
        warmUp.interrupt();
        try {
            warmUp.join(WARM_UP_JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (warmUp.isAlive()) {
            LOG.warn("The TM's warm-up term did not end within {} ms of close; it ends by itself", WARM_UP_JOIN_MS);
        }
        housekeeping.shutdownNow();
    }

    /**
     * Warms the server code up (TmWarmUp) in a process that is still a backup a moment after it started contending:
     * never before or instead of contending (a lease free now is taken now), and not in a process that has taken the
     * lease, whose first term pays that cost anyway. A backup that takes the lease while it warms up runs its first
     * term beside the warm-up: both complete, they share no state, the warm-up only competes for CPU.
     */
    private void warmUpAsBackup() {
        try {
            Thread.sleep(WARM_UP_DELAY_MS);
        } catch (InterruptedException e) {
            return;
        }
        if (!isClosed() && !leaseTaken) {
            TmWarmUp.run(tmConfig, serverConfig);
        }
    }

    private PrimaryTerm currentTerm() {
        synchronized (monitor) {
            return current;
        }
    }

    private boolean isClosed() {
        synchronized (monitor) {
            return closed;
        }
    }

    /** The contender thread: backup until the lease is won, primary until it is lost, and again. */
    private void contend() {
        while (!isClosed()) {
            try {
                if (!awaitNoEmbeddedTm()) {
                    break;
                }
            } catch (TmException | RuntimeException e) {
                if (!retryAfter("looking for embedded TMs", e)) {
                    break;
                }
                continue;
            }
            ZooKeeperLease lease;
            try {
                lease = ZooKeeperLease.acquire(zk, haConfig.paths().lease(), holderId, haConfig.leaseMs(),
                        seams.monotonicClock());
            } catch (InterruptedException e) {
                break;
            } catch (TmException | RuntimeException e) {
                if (!retryAfter("contending for the lease", e)) {
                    break;
                }
                continue;
            }
            leaseTaken = true;
            if (isClosed()) {
                lease.release();
                break;
            }
            PrimaryTerm term;
            try {
                term = PrimaryTerm.begin(lease, zk, haConfig, tmConfig, serverConfig, seams, housekeeping);
            } catch (TmException | RuntimeException e) {
                if (!retryAfter("starting as primary", e)) {
                    break;
                }
                continue;
            }
            serve(term);
        }
        LOG.info("Transaction manager {} stopped contending for primacy", holderId);
    }

    private void serve(PrimaryTerm term) {
        synchronized (monitor) {
            if (closed) {
                term.end("the transaction manager was shut down", true);
                return;
            }
            current = term;
            monitor.notifyAll();
        }
        LOG.info("Transaction manager {} is primary at {} ({})", holderId, term.endpoint(), term.takeoverSummary());
        notifyListener(() -> seams.listener().becamePrimary(term.endpoint()));
        String reason;
        try {
            reason = term.awaitEnd();
        } catch (InterruptedException e) {
            reason = null;
        }
        synchronized (monitor) {
            current = null;
            monitor.notifyAll();
        }
        if (reason == null || isClosed()) {
            term.end("the transaction manager was shut down", true);
            return;
        }
        term.end(reason, false);
        LOG.error("Transaction manager {} is no longer primary and stopped serving: {}", holderId, reason);
        String why = reason;
        notifyListener(() -> seams.listener().lostPrimacy(why));
    }

    /**
     * Returns once no embedded TM is registered on the cluster (false when closed meanwhile). A JVM that chose an
     * embedded TM before this cluster was deployed decides transactions until it stops; becoming primary next to it
     * would make two TMs with separate conflict tables and unrelated timestamps. The error names those JVMs.
     */
    private boolean awaitNoEmbeddedTm() throws TmException {
        List<String> reported = List.of();
        while (!isClosed()) {
            List<String> embedded = deployment.embeddedTms();
            if (embedded.isEmpty()) {
                if (!reported.isEmpty()) {
                    LOG.info("Transaction manager {}: no embedded TM is registered at {} any more; contending for"
                            + " primacy", holderId, deployment.where());
                }
                return true;
            }
            if (!embedded.equals(reported)) {
                LOG.error("Transaction manager {} does not become primary: embedded transaction managers run on this"
                        + " cluster ({} at {}): {}. Two TMs would decide transactions on the same tables with separate"
                        + " conflict tables and unrelated timestamps. Stop those JVMs (with phoenix.txn.tm.mode=auto"
                        + " they use this TM server once they start again); this TM becomes primary as soon as their"
                        + " markers are gone", holderId, haConfig.paths().embedded(), ZooKeeperClients.quorum(zk),
                        String.join("; ", embedded));
                reported = embedded;
            }
            try {
                Thread.sleep(pollMs()); // polling ZooKeeper for the markers to go, not waiting for luck
            } catch (InterruptedException e) {
                return false;
            }
        }
        return false;
    }

    private long pollMs() {
        return Math.min(1_000, Math.max(50, haConfig.leaseMs() / 4));
    }

    /** Logs a failure and waits before retrying; false when the service or its client is shutting down. */
    private boolean retryAfter(String what, Exception e) {
        if (isClosed() || zk.getState() == CuratorFrameworkState.STOPPED) {
            return false;
        }
        LOG.warn("Transaction manager {} failed {}; retrying: {}", holderId, what, e.getMessage());
        try {
            Thread.sleep(pollMs());
            return true;
        } catch (InterruptedException interrupted) {
            return false;
        }
    }

    private void notifyListener(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("HA listener failed", e);
        }
    }

    private static String newHolderId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = "unknown-host";
        }
        String pid = Long.toString(ProcessHandle.current().pid());
        return host + "/" + pid + "/" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread t = new Thread(runnable, name);
            t.setDaemon(true);
            return t;
        };
    }
}
