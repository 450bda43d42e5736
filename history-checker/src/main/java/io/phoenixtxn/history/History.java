package io.phoenixtxn.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable history: events in the order they were recorded, and the operations they form.
 *
 * <p>Invariants checked on construction: indices are 0..n-1 in order, times never decrease, a process has at most
 * one invocation in flight and every completion answers an invocation of its process with the same function.
 * Invocations still in flight at the end become info operations (unknown outcome).
 */
public final class History {
    private final List<Event> events;
    private final List<Op> ops;

    private History(List<Event> events) {
        this.events = List.copyOf(events);
        this.ops = Collections.unmodifiableList(pair(this.events));
    }

    public static History of(List<Event> events) {
        return new History(events);
    }

    public List<Event> events() {
        return events;
    }

    /** Operations in invocation order. */
    public List<Op> ops() {
        return ops;
    }

    private static List<Op> pair(List<Event> events) {
        Map<Integer, Event> open = new HashMap<>();
        Map<Integer, Op> byInvoke = new HashMap<>();
        long lastTime = Long.MIN_VALUE;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            if (e.index() != i) {
                throw new IllegalArgumentException("event " + i + " has index " + e.index() + ": " + e);
            }
            if (e.time() < lastTime) {
                throw new IllegalArgumentException("time goes back at event " + i + ": " + e);
            }
            lastTime = e.time();
            if (e.type() == OpType.INVOKE) {
                Event previous = open.putIfAbsent(e.process(), e);
                if (previous != null) {
                    throw new IllegalArgumentException("process " + e.process() + " invoked " + e + " while "
                            + previous + " was in flight");
                }
                continue;
            }
            Event invoke = open.remove(e.process());
            if (invoke == null) {
                throw new IllegalArgumentException("completion without an invocation: " + e);
            }
            if (!invoke.f().equals(e.f())) {
                throw new IllegalArgumentException("completion " + e + " answers " + invoke + " with another f");
            }
            List<Mop> value = e.type() == OpType.OK ? e.value() : invoke.value();
            byInvoke.put(invoke.index(), new Op(invoke.index(), invoke.process(), invoke.f(), e.type(), invoke.time(),
                    e.time(), e.index(), invoke.value(), value, e.error()));
        }
        for (Event invoke : open.values()) {
            byInvoke.put(invoke.index(), new Op(invoke.index(), invoke.process(), invoke.f(), OpType.INFO,
                    invoke.time(), Long.MAX_VALUE, -1, invoke.value(), invoke.value(), "never completed"));
        }
        List<Op> result = new ArrayList<>(byInvoke.values());
        result.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return result;
    }

    /** Counts by completion type, for summaries. */
    public Map<OpType, Integer> counts() {
        Map<OpType, Integer> counts = new java.util.EnumMap<>(OpType.class);
        for (Op op : ops) {
            counts.merge(op.type(), 1, Integer::sum);
        }
        return counts;
    }

    @Override
    public String toString() {
        return "History(" + events.size() + " events, " + ops.size() + " operations)";
    }
}
