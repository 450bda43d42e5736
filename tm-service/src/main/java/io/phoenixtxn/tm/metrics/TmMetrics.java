package io.phoenixtxn.tm.metrics;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.CommitDecision;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableQuantiles;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import static org.apache.hadoop.metrics2.lib.Interns.info;

/**
 * What the TM decided, counted on its hot path: begins, commits, aborts by reason, and the in-TM commit latency.
 * One per TM process, shared by the cores of its successive primary terms (counts survive a term change; they reset
 * only when the process restarts, which Prometheus' {@code rate()} handles).
 *
 * <p>Invariant: recording allocates nothing, takes no lock and writes no memory another thread writes, per
 * transaction. Counters are plain {@link LongAdder}s (threads add into cells of their own), reported as metrics2
 * counters when a sink or JMX reads them: metrics2's {@code MutableCounterLong} wraps a {@code LongAdder} too, but
 * also sets a shared volatile "changed" flag on every increment, and that one contended cache line cost the
 * in-process TM a third of its throughput at two threads. The latency quantiles ({@link MutableQuantiles},
 * synchronized) see one commit in {@value #SAMPLE_EVERY}, chosen by its transaction id, so the other commits read no
 * clock and touch no lock (issue 13 measured the whole in-process commit at ~1 us).
 */
public final class TmMetrics {
    /** Record name, and the prefix of every name in Prometheus ({@code phoenix_txn_tm_...}). */
    public static final String RECORD = "PhoenixTxnTm";
    /** Commits whose latency the quantiles sample: one in this many (a power of two). */
    public static final int SAMPLE_EVERY = 64;
    /**
     * Window of the latency quantiles, seconds (names such as {@code CommitLatency99thPercentileMicros} and
     * {@code CommitLatencyNumCommits}).
     */
    public static final int QUANTILE_WINDOW_S = 60;
    /** The abort reasons a TM decides (the others are reached by clients only). */
    private static final AbortReason[] TM_REASONS = {AbortReason.CONFLICT, AbortReason.FENCE,
            AbortReason.BELOW_LOW_WATER_MARK, AbortReason.CONFLICT_HISTORY_FULL, AbortReason.LEASE_LOST,
            AbortReason.EXPIRED};

    private final MetricsRegistry registry = new MetricsRegistry(RECORD).setContext("phoenixtxn");
    private static final MetricsInfo BEGINS = info("Begins", "transactions begun");
    private static final MetricsInfo COMMITS = info("Commits", "commits decided committed");
    private final LongAdder begins = new LongAdder();
    private final LongAdder commits = new LongAdder();
    /** Indexed by wire code: an array lookup, no map, on the abort path. */
    private final LongAdder[] abortsByCode;
    private final MetricsInfo[] abortInfoByCode;
    private final MutableQuantiles commitLatency;

    public TmMetrics() {
        this(QUANTILE_WINDOW_S);
    }

    /** With latency quantiles over windows of {@code quantileWindowSeconds} (tests use short ones). */
    public TmMetrics(int quantileWindowSeconds) {
        commitLatency = registry.newQuantiles("CommitLatency", "in-TM decision time of one commit in "
                + SAMPLE_EVERY + " (entry to decision: fence lock, oracle, conflict table, lease check)", "Commits",
                "Micros", quantileWindowSeconds);
        int maxCode = 0;
        for (AbortReason reason : TM_REASONS) {
            maxCode = Math.max(maxCode, reason.wireCode());
        }
        abortsByCode = new LongAdder[maxCode + 1];
        abortInfoByCode = new MetricsInfo[maxCode + 1];
        for (AbortReason reason : TM_REASONS) {
            abortsByCode[reason.wireCode()] = new LongAdder();
            abortInfoByCode[reason.wireCode()] = info(abortMetricName(reason),
                    "commits decided aborted: " + reason.name());
        }
    }

    /** The metric name of an abort reason: {@code Aborts} + the reason in camel case ({@code AbortsConflict}). */
    public static String abortMetricName(AbortReason reason) {
        StringBuilder name = new StringBuilder("Aborts");
        for (String word : reason.name().split("_")) {
            name.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return name.toString();
    }

    /** {@code n} transactions began. */
    public void began(int n) {
        begins.add(n);
    }

    /** Whether this commit's latency is sampled: decided by its id, so no state is shared between threads. */
    public static boolean sampled(long txId) {
        // Transaction ids are slot starts (multiples of 950): the slot number cycles through all residues.
        return (txId / 950) % SAMPLE_EVERY == 0;
    }

    /**
     * A commit was decided with {@code outcome} ({@link CommitDecision}: positive = committed, else an abort);
     * {@code latencyNanos} is its decision time if it was {@link #sampled}, else negative.
     */
    public void decided(long outcome, long latencyNanos) {
        if (outcome > 0) {
            commits.increment();
        } else {
            int code = CommitDecision.reasonOf(outcome).wireCode();
            if (code > 0 && code < abortsByCode.length && abortsByCode[code] != null) {
                abortsByCode[code].increment();
            }
        }
        if (latencyNanos >= 0) {
            commitLatency.add(latencyNanos / 1_000);
        }
    }

    public long begins() {
        return begins.sum();
    }

    public long commits() {
        return commits.sum();
    }

    /** Aborts the TM decided for {@code reason} (0 for reasons only clients reach). */
    public long aborts(AbortReason reason) {
        int code = reason.wireCode();
        return code > 0 && code < abortsByCode.length && abortsByCode[code] != null ? abortsByCode[code].sum() : 0;
    }

    /** Every TM abort count by reason (tests, reports). */
    public Map<AbortReason, Long> abortsByReason() {
        Map<AbortReason, Long> out = new EnumMap<>(AbortReason.class);
        for (AbortReason reason : TM_REASONS) {
            out.put(reason, aborts(reason));
        }
        return out;
    }

    /** Adds the counters and quantiles to a metrics2 record. */
    void snapshot(MetricsRecordBuilder record, boolean all) {
        record.addCounter(BEGINS, begins.sum()).addCounter(COMMITS, commits.sum());
        for (int code = 0; code < abortsByCode.length; code++) {
            if (abortsByCode[code] != null) {
                record.addCounter(abortInfoByCode[code], abortsByCode[code].sum());
            }
        }
        registry.snapshot(record, all);
    }
}
