package io.phoenixtxn.tm;

import io.phoenixtxn.tm.metrics.MetricsSystems;
import io.phoenixtxn.tm.metrics.TmMetrics;
import io.phoenixtxn.tm.metrics.TmMetricsSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's embedded transaction manager: one per process, created on first use, no network hop. Every Phoenix
 * connection service, the embedded stack's serve mode (which puts a server in front of it) and tests share it.
 * Embedded mode is for one JVM; several JVMs must share a TM server (bin/tm-server, or the stack's serve mode),
 * because two TMs would hand out overlapping snapshots with separate conflict tables.
 *
 * <p>Two kinds of in-process TM live here, and callers must tell them apart: the TM this JVM <em>serves</em> to the
 * cluster ({@link #adopt}: the stack's --serve, HA tests), which is the cluster's TM, and an <em>in-memory</em> TM
 * ({@link #shared}), which is only correct where the cluster has no TM server. Whether it may be used is the TM
 * locator's decision ({@code io.phoenixtxn.tm.discovery.TmLocator}), not this class's.
 *
 * <p>Metrics: the JVM's TM is one metrics2 source ({@link TmMetricsSource}, record {@value TmMetrics#RECORD}, the
 * names a TM server reports), registered while that TM runs: when an in-memory TM starts, or when {@link #adopt}
 * is given the served TM's source; removed when it stops ({@link #shutdown}, or replaced). A TM started after an
 * earlier one stopped registers under the same name, with counters from zero. A metrics system that fails costs
 * the metrics (one warning), never the TM.
 */
public final class EmbeddedTm {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedTm.class);
    private static volatile TransactionManagerCore instance;
    /**
     * Kept across restarts within the JVM: a restarted embedded TM starts above every timestamp and fence its
     * predecessor issued, and (low-water mark = previous epoch) aborts transactions begun on the predecessor.
     */
    private static final InMemoryTimestampStorage TIMESTAMPS = new InMemoryTimestampStorage();
    private static final FenceStore FENCES = FenceStore.inMemory();
    /** Set when the JVM serves its TM to others (HA service): the TM then comes from there, never in memory. */
    private static volatile java.util.function.Supplier<TransactionManagerCore> adopted;
    /** The metrics2 source name of the running TM, null while none is registered. Guarded by the class. */
    private static String metricsSource;

    private EmbeddedTm() {
    }

    /** The shared TM, started with {@code config} if this is the first call. */
    public static TransactionManagerCore shared(TmConfig config) {
        java.util.function.Supplier<TransactionManagerCore> source = adopted;
        if (source != null) {
            TransactionManagerCore served = source.get();
            if (served == null) {
                throw new IllegalStateException("This JVM serves its transaction manager through ZooKeeper HA and"
                        + " is not primary right now (lease lost); transactions resume when it or a backup is");
            }
            return served;
        }
        TransactionManagerCore tm = instance;
        if (tm != null && tm.isServing()) {
            return tm;
        }
        synchronized (EmbeddedTm.class) {
            if (instance == null || !instance.isServing()) {
                unexpose();
                TmMetrics metrics = new TmMetrics();
                TransactionManagerCore started;
                try {
                    started = TransactionManagerCore.start(config, Clock.SYSTEM, TIMESTAMPS, FENCES,
                            Lease.ALWAYS_HELD, metrics);
                } catch (TmException e) {
                    throw new IllegalStateException("in-memory storage cannot fail", e);
                }
                instance = started;
                expose(new TmMetricsSource(metrics, () -> started, () -> null));
            }
            return instance;
        }
    }

    /** The served TM if this JVM serves one, else the in-memory TM if one runs, else null; never starts one. */
    public static TransactionManagerCore existing() {
        java.util.function.Supplier<TransactionManagerCore> source = adopted;
        if (source != null) {
            return source.get();
        }
        TransactionManagerCore tm = instance;
        return tm != null && tm.isServing() ? tm : null;
    }

    /**
     * Makes this JVM's TM the one {@code source} supplies (a TM this JVM serves to others, primary through HA).
     * Must happen before the first transaction; an in-memory TM started earlier is shut down.
     */
    public static synchronized void adopt(java.util.function.Supplier<TransactionManagerCore> source) {
        adopt(source, null);
    }

    /**
     * As {@link #adopt(java.util.function.Supplier)}, and registers {@code metrics} (the served TM's source, which
     * follows its primary terms; null: none) as the JVM's TM metrics until {@link #shutdown}.
     */
    public static synchronized void adopt(java.util.function.Supplier<TransactionManagerCore> source,
                                          TmMetricsSource metrics) {
        if (instance != null) {
            instance.close();
            instance = null;
        }
        unexpose();
        adopted = source;
        if (metrics != null) {
            expose(metrics);
        }
    }

    /** The metrics2 source name the running TM is registered under ({@value TmMetrics#RECORD}), if any. */
    public static synchronized java.util.Optional<String> metricsSourceName() {
        return java.util.Optional.ofNullable(metricsSource);
    }

    /** True when this JVM serves the cluster's TM ({@link #adopt}), primary right now or not. */
    public static boolean isServedHere() {
        return adopted != null;
    }

    /** The TM this JVM serves while it is primary; null when it serves none or is not primary right now. */
    public static TransactionManagerCore served() {
        java.util.function.Supplier<TransactionManagerCore> source = adopted;
        return source == null ? null : source.get();
    }

    /** The in-memory TM if one is running; never starts one (and never returns a served TM). */
    public static TransactionManagerCore inMemory() {
        TransactionManagerCore tm = instance;
        return tm != null && tm.isServing() ? tm : null;
    }

    /** Stops the shared TM; the next {@link #shared} starts a new one (timestamps stay monotonic). */
    public static synchronized void shutdown() {
        adopted = null;
        if (instance != null) {
            instance.close();
            instance = null;
        }
        unexpose();
    }

    /** Registers the running TM's source; a failing metrics system is reported once and otherwise ignored. */
    private static void expose(TmMetricsSource source) {
        try {
            metricsSource = MetricsSystems.register(TmMetrics.RECORD, "phoenix-txn embedded transaction manager",
                    source);
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("The embedded transaction manager runs without metrics: the metrics2 system failed ({})",
                    e.toString());
        }
    }

    private static void unexpose() {
        String name = metricsSource;
        metricsSource = null;
        if (name != null) {
            try {
                MetricsSystems.unregister(name);
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Could not remove the embedded transaction manager's metrics source {} ({})", name,
                        e.toString());
            }
        }
    }
}
