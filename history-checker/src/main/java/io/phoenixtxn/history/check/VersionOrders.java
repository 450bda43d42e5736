package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The version order of each key, recovered from reads alone (Elle's list-append inference): every read of a key
 * returns the whole list of elements appended so far, so every read must be a prefix of the longest one, and that
 * longest read orders the versions it covers. A key with two reads that are not prefixes of one another has no
 * single order: it is reported (incompatible order) and left out of ww and rw inference.
 */
final class VersionOrders {
    private final Map<Long, List<Long>> order = new HashMap<>();
    private final Map<Long, Op> orderSource = new HashMap<>();
    private final Map<Long, Map<Long, Integer>> positions = new HashMap<>();
    private final Set<Long> incompatible = new HashSet<>();
    private final List<Anomaly> anomalies = new ArrayList<>();

    /** @param reads every read of every acknowledged operation: (operation, key, list) */
    VersionOrders(List<ListAppendChecker.Read> reads) {
        for (ListAppendChecker.Read r : reads) {
            List<Long> longest = order.get(r.key());
            if (longest == null || r.list().size() > longest.size()) {
                order.put(r.key(), r.list());
                orderSource.put(r.key(), r.op());
            }
        }
        Map<Long, Set<List<Long>>> reported = new HashMap<>();
        for (ListAppendChecker.Read r : reads) {
            List<Long> longest = order.get(r.key());
            if (!isPrefix(r.list(), longest)) {
                incompatible.add(r.key());
                if (reported.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.list())) {
                    Op source = orderSource.get(r.key());
                    anomalies.add(Anomaly.of(AnomalyKind.INCOMPATIBLE_ORDER, "key " + r.key() + ": "
                            + r.op().name() + " read " + r.list() + ", " + source.name() + " read " + longest
                            + ": neither is a prefix of the other", r.op(), source));
                }
            }
        }
        for (Map.Entry<Long, List<Long>> e : order.entrySet()) {
            Map<Long, Integer> pos = new HashMap<>();
            List<Long> list = e.getValue();
            for (int i = 0; i < list.size(); i++) {
                pos.putIfAbsent(list.get(i), i);
            }
            positions.put(e.getKey(), pos);
        }
    }

    List<Anomaly> anomalies() {
        return anomalies;
    }

    boolean compatible(long key) {
        return !incompatible.contains(key);
    }

    /** The longest read of {@code key} (empty if never read). */
    List<Long> order(long key) {
        return order.getOrDefault(key, List.of());
    }

    /** The operation whose read gave the order of {@code key}: the evidence behind its ww and rw edges. */
    Op source(long key) {
        return orderSource.get(key);
    }

    /** Position of {@code element} in the order of {@code key}, or -1 when no read showed it. */
    int position(long key, long element) {
        Map<Long, Integer> pos = positions.get(key);
        Integer p = pos == null ? null : pos.get(element);
        return p == null ? -1 : p;
    }

    static boolean isPrefix(List<Long> prefix, List<Long> list) {
        if (prefix.size() > list.size()) {
            return false;
        }
        for (int i = 0; i < prefix.size(); i++) {
            if (!prefix.get(i).equals(list.get(i))) {
                return false;
            }
        }
        return true;
    }
}
