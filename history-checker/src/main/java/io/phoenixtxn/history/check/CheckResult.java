package io.phoenixtxn.history.check;

import io.phoenixtxn.history.OpType;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A checker's verdict: valid unless a prohibited anomaly was found. Findings that snapshot isolation allows
 * (write skew) are listed but do not make the history invalid.
 */
public final class CheckResult {
    private static final int SHOWN_PER_KIND = 5;
    private final String checker;
    private final Map<OpType, Integer> counts;
    private final List<Anomaly> anomalies;

    public CheckResult(String checker, Map<OpType, Integer> counts, List<Anomaly> anomalies) {
        this.checker = checker;
        this.counts = Map.copyOf(counts);
        this.anomalies = List.copyOf(anomalies);
    }

    public boolean valid() {
        return anomalies.stream().noneMatch(a -> a.kind().prohibited());
    }

    public List<Anomaly> anomalies() {
        return anomalies;
    }

    public List<Anomaly> anomalies(AnomalyKind kind) {
        return anomalies.stream().filter(a -> a.kind() == kind).toList();
    }

    /** How many findings of each kind. */
    public Map<AnomalyKind, Integer> kinds() {
        Map<AnomalyKind, Integer> kinds = new EnumMap<>(AnomalyKind.class);
        for (Anomaly a : anomalies) {
            kinds.merge(a.kind(), 1, Integer::sum);
        }
        return kinds;
    }

    /** The verdict, then a few findings of each kind with their sub-histories. */
    public String report() {
        StringBuilder sb = new StringBuilder();
        sb.append(checker).append(": ").append(counts.getOrDefault(OpType.OK, 0)).append(" ok, ")
                .append(counts.getOrDefault(OpType.FAIL, 0)).append(" failed, ")
                .append(counts.getOrDefault(OpType.INFO, 0)).append(" unknown operations\n");
        Map<AnomalyKind, Integer> kinds = kinds();
        sb.append(valid() ? "VALID" : "INVALID");
        if (!kinds.isEmpty()) {
            sb.append(": ").append(kinds);
        }
        sb.append('\n');
        for (Map.Entry<AnomalyKind, Integer> e : kinds.entrySet()) {
            AnomalyKind kind = e.getKey();
            sb.append("\n== ").append(kind).append(kind.prohibited() ? "" : " (allowed under snapshot isolation)")
                    .append(": ").append(kind.description()).append('\n');
            List<Anomaly> ofKind = new ArrayList<>(anomalies(kind));
            for (Anomaly a : ofKind.subList(0, Math.min(SHOWN_PER_KIND, ofKind.size()))) {
                sb.append(a.describe());
            }
            if (ofKind.size() > SHOWN_PER_KIND) {
                sb.append("    ... and ").append(ofKind.size() - SHOWN_PER_KIND).append(" more\n");
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return (valid() ? "VALID " : "INVALID ") + kinds();
    }
}
