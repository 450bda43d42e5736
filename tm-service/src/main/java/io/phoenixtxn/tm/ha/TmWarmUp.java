package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * One throw-away primary term in a TM process that is still a backup a moment after it started contending
 * ({@code TmHaService}): an in-memory TM core with a tiny conflict table,
 * a server on an ephemeral loopback port with the process's own server settings (transport, TLS, threads), and, without
 * TLS, one begin and commit through the network client. The first real term then finds Netty's native transport,
 * the codecs and the TM's classes loaded: measured before this, a process's first term spent 0.8-1.4 s starting its
 * server (3 ms in later terms), all of it inside the failover window (design.md sec. 4.3). A failure here only costs
 * that time back; it is logged and the process contends as before.
 */
final class TmWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(TmWarmUp.class);
    /** Entries of the warm-up core's conflict table: enough to run its code, too few to cost memory. */
    static final int CONFLICT_ENTRIES = 1024;
    /** Decisions the warm-up core's decision log keeps (the default keeps 256K). */
    static final int DECISIONS_RETAINED = 1024;

    private TmWarmUp() {
    }

    /** Runs the throw-away term; returns the port it listened on if it ran to its end (closed by then). Never throws. */
    static OptionalInt run(TmConfig tmConfig, TmServerConfig serverConfig) {
        long started = System.nanoTime();
        int port;
        TmConfig small = tmConfig.withConflictEntries(Math.max(CONFLICT_ENTRIES, tmConfig.conflictAssociativity()))
                .withDecisionsRetained(DECISIONS_RETAINED);
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(small);
             TmServer server = TmServer.start(tm, serverConfig.withHost("127.0.0.1").withPort(0))) {
            port = server.address().getPort();
            if (serverConfig.sslContext() == null) {
                try (RemoteTransactionManager client = RemoteTransactionManager.connect(
                        new StaticEndpointResolver("127.0.0.1", server.address().getPort()),
                        RemoteTmConfig.defaults().withConnections(1))) {
                    long txId = client.begin();
                    client.commit(txId, new long[] {1L}, new long[] {1L});
                }
            }
        } catch (Exception | LinkageError e) {
            if (Thread.currentThread().isInterrupted()) {
                LOG.info("The TM's warm-up term stopped: the process is closing ({})", e.toString());
                return OptionalInt.empty();
            }
            LOG.warn("The TM's warm-up term failed ({}); its first term as primary will start slower", e.toString());
            return OptionalInt.empty();
        }
        LOG.info("Warmed up the TM core and server in {} ms (a backup, ready for a fast takeover)",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return OptionalInt.of(port);
    }
}
