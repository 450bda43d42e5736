package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who appended what: every (key, element) of every operation, whatever its outcome, taken from the invocation (an
 * unknown outcome's writes are known from what it asked). Elements are unique per key by construction of the
 * workload; a history that breaks this cannot be checked and is refused.
 */
final class Appends {
    private final Map<Long, Map<Long, Op>> writers = new HashMap<>();
    private final Map<Integer, Map<Long, List<Long>>> byOp = new HashMap<>();

    Appends(List<Op> ops) {
        for (Op op : ops) {
            for (Mop m : op.invokeValue()) {
                if (!m.isAppend()) {
                    continue;
                }
                long element = m.number();
                Op previous = writers.computeIfAbsent(m.key(), k -> new HashMap<>()).putIfAbsent(element, op);
                if (previous != null) {
                    throw new IllegalArgumentException("element " + element + " was appended to key " + m.key()
                            + " by " + previous.name() + " and " + op.name()
                            + ": the checker needs every appended element to be unique per key");
                }
                byOp.computeIfAbsent(op.id(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(m.key(), k -> new ArrayList<>()).add(element);
            }
        }
    }

    /** The operation that appended {@code element} to {@code key}, or null if none did. */
    Op writer(long key, long element) {
        Map<Long, Op> ofKey = writers.get(key);
        return ofKey == null ? null : ofKey.get(element);
    }

    /** The keys {@code op} appended to, each with its elements in order. */
    Map<Long, List<Long>> of(Op op) {
        return byOp.getOrDefault(op.id(), Map.of());
    }

    /** True when {@code element} is the last one {@code writer} appended to {@code key}. */
    boolean isLastOf(Op writer, long key, long element) {
        List<Long> mine = of(writer).get(key);
        return mine != null && mine.get(mine.size() - 1) == element;
    }
}
