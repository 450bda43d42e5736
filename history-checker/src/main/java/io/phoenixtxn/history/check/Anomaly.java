package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One finding with its minimal failing sub-history: the operations involved (in history order) and, for a cycle,
 * its edges with their evidence.
 */
public record Anomaly(AnomalyKind kind, String explanation, List<Op> ops, List<Edge> edges) {
    public Anomaly {
        List<Op> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingInt(Op::id));
        ops = List.copyOf(sorted);
        edges = List.copyOf(edges);
    }

    public static Anomaly of(AnomalyKind kind, String explanation, Op... ops) {
        return new Anomaly(kind, explanation, List.of(ops), List.of());
    }

    /** Several lines: kind, explanation, the operations, the edges. */
    public String describe() {
        StringBuilder sb = new StringBuilder(kind.name()).append(": ").append(explanation).append('\n');
        for (Op op : ops) {
            sb.append("    ").append(op).append('\n');
        }
        for (Edge e : edges) {
            sb.append("    ").append(e).append('\n');
        }
        return sb.toString();
    }
}
