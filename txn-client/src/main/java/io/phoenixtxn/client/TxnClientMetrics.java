package io.phoenixtxn.client;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.metrics.MetricsSystems;
import io.phoenixtxn.tm.metrics.TmMetrics;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;
import org.apache.hadoop.metrics2.lib.MutableQuantiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;

/**
 * What the transactional clients of this JVM did, as one Hadoop metrics2 source ({@value #RECORD}; JMX
 * {@code Hadoop:service=<prefix>,name=PhoenixTxnClient}, any metrics2 sink): commits and their latency, aborts by
 * reason, outcomes left in doubt, commit-point (commit-table) write latency, the asynchronous post-commit backlog,
 * and the commit-table cleaner's passes and what they completed.
 *
 * <p>One per JVM ({@link #process()}), shared by every {@link TxnClient}: an application's connections are one
 * client to an operator. Counters are {@code LongAdder}s; the latency quantiles (metrics2's, over
 * {@value #QUANTILE_WINDOW_S} s windows) cost a short lock per commit, small next to the commit's network round
 * trips.
 */
public final class TxnClientMetrics implements MetricsSource {
    public static final String RECORD = "PhoenixTxnClient";
    static final int QUANTILE_WINDOW_S = 60;
    private static final Logger LOG = LoggerFactory.getLogger(TxnClientMetrics.class);
    private static final TxnClientMetrics PROCESS = new TxnClientMetrics(QUANTILE_WINDOW_S);
    private static boolean registered;

    private final MetricsRegistry registry = new MetricsRegistry(RECORD).setContext("phoenixtxn");
    private final MutableCounterLong commits = registry.newCounter("Commits",
            "transactions committed (read-only ones included)", 0L);
    private final MutableCounterLong inDoubt = registry.newCounter("InDoubt",
            "commits whose outcome could not be learned (SQL error 1077): readers and the cleaner settle them", 0L);
    private final MutableCounterLong tmUnavailable = registry.newCounter("TmUnavailable",
            "commits rolled back because the TM did not answer", 0L);
    private final Map<AbortReason, MutableCounterLong> aborts = new EnumMap<>(AbortReason.class);
    private final MutableQuantiles commitLatency;
    private final MutableCounterLong commitTableWrites = registry.newCounter("CommitTableWrites",
            "commit points written (commit-table checkAndMutate answered)", 0L);
    private final MutableQuantiles commitTableWriteLatency;
    private final MutableGaugeLong postCommitBacklog = registry.newGauge("PostCommitBacklog",
            "committed transactions whose commit cells are still to be written (asynchronous post-commit)", 0L);
    private final MutableCounterLong postCommitFailures = registry.newCounter("PostCommitFailures",
            "post-commits that failed after the commit point (their entries stay for readers and the cleaner)", 0L);
    private final MutableCounterLong cleanerRuns = registry.newCounter("CleanerRuns",
            "passes of the commit-table cleaner", 0L);
    private final MutableCounterLong cleanerCompleted = registry.newCounter("CleanerCompleted",
            "commit-table entries of stopped clients the cleaner completed (commit cells written, entry removed)", 0L);
    private final MutableCounterLong cleanerFailed = registry.newCounter("CleanerFailed",
            "entries the cleaner could not complete in a pass (retried next pass)", 0L);

    /**
     * Metrics of their own, with latency quantiles over windows of {@code quantileWindowSeconds}: for tests, and
     * clients that report apart from {@link #process()} (pass them to {@link TxnClient}'s constructor).
     */
    public TxnClientMetrics(int quantileWindowSeconds) {
        commitLatency = registry.newQuantiles("CommitLatency",
                "commit() from its call to its return (TM decision, commit point, and the post-commit when sync)",
                "Commits", "Micros", quantileWindowSeconds);
        commitTableWriteLatency = registry.newQuantiles("CommitTableWriteLatency",
                "the commit point: the commit-table checkAndMutate", "Writes", "Micros", quantileWindowSeconds);
        for (AbortReason reason : AbortReason.values()) {
            aborts.put(reason, registry.newCounter(TmMetrics.abortMetricName(reason),
                    "transactions aborted: " + reason.name(), 0L));
        }
    }

    /** This JVM's client metrics. */
    public static TxnClientMetrics process() {
        return PROCESS;
    }

    /**
     * Registers {@link #process()} with the JVM's metrics2 system, once. A JVM whose metrics2 classes do not load
     * (a trimmed classpath) keeps counting and logs why it exposes nothing: metrics never stop a client.
     */
    static synchronized void expose() {
        if (registered) {
            return;
        }
        registered = true;
        try {
            MetricsSystems.register(RECORD, "phoenix-txn transactional clients of this JVM", PROCESS);
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("Client metrics are counted but not exposed (metrics2 unavailable: {})", e.toString());
        }
    }

    void committed(long latencyNanos) {
        commits.incr();
        commitLatency.add(latencyNanos / 1_000);
    }

    void aborted(AbortReason reason) {
        aborts.get(reason).incr();
    }

    void inDoubt() {
        inDoubt.incr();
    }

    void tmUnavailable() {
        tmUnavailable.incr();
    }

    void commitTableWrite(long latencyNanos) {
        commitTableWrites.incr();
        commitTableWriteLatency.add(latencyNanos / 1_000);
    }

    void postCommitQueued() {
        postCommitBacklog.incr();
    }

    void postCommitDone(boolean failed) {
        postCommitBacklog.decr();
        if (failed) {
            postCommitFailures.incr();
        }
    }

    void cleanerRan(int completed, int failed) {
        cleanerRuns.incr();
        cleanerCompleted.incr(completed);
        cleanerFailed.incr(failed);
    }

    public long commits() {
        return commits.value();
    }

    public long aborts(AbortReason reason) {
        return aborts.get(reason).value();
    }

    public long inDoubtCount() {
        return inDoubt.value();
    }

    public long tmUnavailableCount() {
        return tmUnavailable.value();
    }

    public long commitTableWrites() {
        return commitTableWrites.value();
    }

    public long postCommitBacklog() {
        return postCommitBacklog.value();
    }

    public long postCommitFailures() {
        return postCommitFailures.value();
    }

    public long cleanerRuns() {
        return cleanerRuns.value();
    }

    public long cleanerCompleted() {
        return cleanerCompleted.value();
    }

    public long cleanerFailed() {
        return cleanerFailed.value();
    }

    @Override
    public void getMetrics(MetricsCollector collector, boolean all) {
        registry.snapshot(collector.addRecord(RECORD).setContext("phoenixtxn"), all);
    }
}
