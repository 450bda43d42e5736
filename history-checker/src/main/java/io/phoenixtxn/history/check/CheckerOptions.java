package io.phoenixtxn.history.check;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How strictly real time is checked. Snapshot isolation as phoenix-txn implements it orders a transaction after
 * every transaction acknowledged before it began (its start timestamp comes from the TM after their commit
 * timestamps), so by default stale reads, session order and real-time order are checked for every operation. A
 * commit path that relaxes real time (a fast path that commits on a region server) names its operation functions
 * here: they are neither checked for stale reads, as writer or reader, nor given session or real-time edges.
 *
 * @param realTimeExempt functions ({@code Op.f()}) exempt from real-time and session order
 */
public record CheckerOptions(Set<String> realTimeExempt) {
    public CheckerOptions {
        realTimeExempt = Set.copyOf(realTimeExempt);
    }

    public static CheckerOptions strict() {
        return new CheckerOptions(Set.of());
    }

    public CheckerOptions exemptFromRealTime(String... functions) {
        Set<String> all = new HashSet<>(realTimeExempt);
        all.addAll(List.of(functions));
        return new CheckerOptions(all);
    }

    public boolean realTimeOrdered(String f) {
        return !realTimeExempt.contains(f);
    }
}
