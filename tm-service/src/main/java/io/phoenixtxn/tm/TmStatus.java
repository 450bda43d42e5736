package io.phoenixtxn.tm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.ArrayList;
import java.util.Map;
import java.util.SortedMap;

/**
 * What a TM reports to operators (protocol version 5's STATUS_REPORT, {@code bin/phoenix-txn-admin}): its state as
 * {@code key=value} lines, a format a newer TM can extend without breaking an older admin tool (unknown keys are
 * shown as they are). Timestamps are TM timestamps ({@link io.phoenixtxn.snapshot.TimestampLayout}: their
 * millisecond is wall-clock time on the TM), so {@code nowMillis} lets a reader compute ages on the TM's clock.
 *
 * @param stoppedBecause   why this TM stopped serving, or null while it serves
 * @param leaseHeld        whether it holds the primary lease (always, without HA)
 * @param epochBase        timestamps at or below it were issued by an earlier primary
 * @param lastTimestamp    the last timestamp issued
 * @param lowWaterMark     transactions that started below it can no longer commit
 * @param gcHorizon        the GC horizon, -1 while unknown (a new primary's grace period)
 * @param openCount        open transactions and index-build fences holding the horizon
 * @param oldestOpen       the oldest of them, oldest first (at most the number asked for)
 * @param fences           table id (hash) to its newest fence timestamp
 * @param conflictEntries  capacity of the conflict table
 * @param nowMillis        the TM's wall clock when the report was taken
 */
public record TmStatus(String stoppedBecause, boolean leaseHeld, long epochBase, long lastTimestamp,
                       long lowWaterMark, long gcHorizon, int openCount, long[] oldestOpen,
                       SortedMap<Long, Long> fences, int conflictEntries, long nowMillis) {

    /** Repeated key: one line per open transaction, oldest first. */
    public static final String OPEN = "open";
    /** Repeated key: one line per fence, {@code tableId:fenceTimestamp}. */
    public static final String FENCE = "fence";

    /** The report's lines, in a stable order; repeated keys ({@link #OPEN}, {@link #FENCE}) repeat. */
    public String toText() {
        StringBuilder out = new StringBuilder();
        line(out, "serving", stoppedBecause == null ? "true" : "false");
        if (stoppedBecause != null) {
            line(out, "stopped.because", stoppedBecause.replace('\n', ' '));
        }
        line(out, "lease.held", Boolean.toString(leaseHeld));
        line(out, "epoch.base", Long.toString(epochBase));
        line(out, "last.timestamp", Long.toString(lastTimestamp));
        line(out, "low.water.mark", Long.toString(lowWaterMark));
        line(out, "gc.horizon", Long.toString(gcHorizon));
        line(out, "conflict.entries", Integer.toString(conflictEntries));
        line(out, "now.ms", Long.toString(nowMillis));
        line(out, "open.count", Integer.toString(openCount));
        for (long txId : oldestOpen) {
            line(out, OPEN, Long.toString(txId));
        }
        line(out, "fences.count", Integer.toString(fences.size()));
        for (Map.Entry<Long, Long> fence : fences.entrySet()) {
            line(out, FENCE, fence.getKey() + ":" + fence.getValue());
        }
        return out.toString();
    }

    private static void line(StringBuilder out, String key, String value) {
        out.append(key).append('=').append(value).append('\n');
    }

    /**
     * Parses report lines: single keys to their value, repeated keys to every value in order (under the same key,
     * joined by {@code ','}: see {@link #values}). Lines without '=' are ignored.
     */
    public static Map<String, String> parse(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.merge(line.substring(0, eq), line.substring(eq + 1), (a, b) -> a + "," + b);
            }
        }
        return values;
    }

    /** The values of a repeated key of a {@link #parse parsed} report, in order; empty when absent. */
    public static List<String> values(Map<String, String> report, String key) {
        String joined = report.get(key);
        return joined == null || joined.isEmpty() ? List.of() : new ArrayList<>(List.of(joined.split(",")));
    }
}
