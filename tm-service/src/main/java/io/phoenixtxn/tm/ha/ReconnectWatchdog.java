package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Gives up a TM server's ZooKeeper connection attempt that has not succeeded within a bound, and lets Curator open a
 * new session. Why: a ZooKeeper client waits for a (re)connection's handshake up to the session timeout divided by
 * the number of servers, and a restarting server accepted connections it then neither answered nor closed (issue 14,
 * the chaos run's slow ZooKeeper restart: no TM could take the lease for 33 s). Curator's own simulated expiry fires
 * once per disconnection; this one fires again for every attempt that stays stuck.
 *
 * <p>Invariant: while the client is not connected, it gives up its handle at most once per {@code giveUpMs} and at
 * least once per {@code giveUpMs} plus one check period; it stops when the client is closed.
 */
final class ReconnectWatchdog implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ReconnectWatchdog.class);
    private static final long MAX_CHECK_PERIOD_MS = 250;

    private final CuratorFramework client;
    private final long giveUpNanos;
    private final ScheduledExecutorService timer;
    /** The last time the client was seen connected or its handle was given up: the bound counts from here. */
    private long since = System.nanoTime();

    private ReconnectWatchdog(CuratorFramework client, long giveUpMs, ScheduledExecutorService timer) {
        this.client = client;
        this.giveUpNanos = TimeUnit.MILLISECONDS.toNanos(giveUpMs);
        this.timer = timer;
    }

    /** Watches {@code client} until it is closed. */
    static void watch(CuratorFramework client, long giveUpMs) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tm-zk-reconnect-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        long periodMs = Math.max(1, Math.min(MAX_CHECK_PERIOD_MS, giveUpMs / 4));
        timer.scheduleWithFixedDelay(new ReconnectWatchdog(client, giveUpMs, timer), periodMs, periodMs,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        try {
            if (client.getState() == CuratorFrameworkState.STOPPED) {
                timer.shutdown();
                return;
            }
            long now = System.nanoTime();
            if (client.getZookeeperClient().isConnected()) {
                since = now;
                return;
            }
            if (now - since < giveUpNanos) {
                return;
            }
            since = now;
            ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
            LOG.warn("ZooKeeper at {} has not answered a connection attempt for {} ms; giving up this session for a"
                    + " new one", ZooKeeperClients.quorum(client), TimeUnit.NANOSECONDS.toMillis(giveUpNanos));
            // As Curator's own simulated expiry does: the handle reports its session expired, and Curator opens a
            // new handle (a new session) at once.
            handle.getTestable().injectSessionExpiration();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.debug("ZooKeeper reconnect watchdog check failed; trying again", e);
        }
    }
}
