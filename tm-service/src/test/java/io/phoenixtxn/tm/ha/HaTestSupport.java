package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.TmServerConfig;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Shared wiring of the HA tests: settings, a TM client that finds the primary through ZooKeeper. */
final class HaTestSupport {
    /** As in FAST'17 sec. 7.2.4. */
    static final long LEASE_MS = 1_000;

    private HaTestSupport() {
    }

    static TmConfig tmConfig(Function<String, String> settings) {
        return TmConfig.from(settings).withConflictEntries(1 << 14);
    }

    static TmServerConfig serverConfig(Function<String, String> settings) {
        return TmServerConfig.from(settings);
    }

    /**
     * A client whose requests fail fast when a primary dies, so the next one goes to the new primary. The first
     * handshake is retried: a TM JVM that just started may answer it slower than the short request timeout.
     */
    static RemoteTransactionManager client(Function<String, String> settings) throws TmException {
        HaConfig haConfig = HaConfig.from(settings);
        RemoteTmConfig config = RemoteTmConfig.from(settings).withRequestTimeoutMs(1_000).withConnectTimeoutMs(1_000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return RemoteTransactionManager.connect(ZooKeeperEndpointResolver.connect(haConfig), config);
            } catch (TmException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }

    /**
     * Begins a transaction, retrying a failed call (its outcome is unknown during a failover) until
     * {@code timeoutMs}; the same client object throughout: no reconnect or reconfiguration by the caller.
     */
    static long beginRetrying(RemoteTransactionManager client, long timeoutMs) throws TmException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            try {
                return client.begin();
            } catch (TmException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Begins transactions through {@code client} until one is served by {@code newPrimary} (its timestamp is above
     * the new primary's epoch base). Until the old primary's lease runs out it may legitimately still answer.
     */
    static long beginOnNewPrimary(RemoteTransactionManager client, TmHaService newPrimary, long timeoutMs)
            throws TmException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long ts = beginRetrying(client, timeoutMs);
            Optional<TransactionManagerCore> tm = newPrimary.transactionManager();
            if (tm.isPresent() && ts > tm.get().epochBase()) {
                return ts;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TmException("No BEGIN was served by the new primary within " + timeoutMs + " ms");
            }
        }
    }

    /**
     * Runs a one-row transaction to its decision, starting a new transaction when a call fails (its outcome is
     * unknown, as an application would). Returns the decision and its start timestamp.
     */
    static Decided runTransaction(RemoteTransactionManager client, long row, long table) throws TmException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                long tx = client.begin();
                return new Decided(tx, client.commit(tx, new long[] {row}, new long[] {table}));
            } catch (TmException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }

    record Decided(long startTs, CommitDecision decision) {
    }
}
