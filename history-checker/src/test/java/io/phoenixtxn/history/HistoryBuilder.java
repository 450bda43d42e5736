package io.phoenixtxn.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hand-written histories for checker tests. Events get increasing times (1 ms apart) in the order they are added,
 * so "T2 invoked after T1 completed" is simply writing T1's completion first. Invocations carry the micro-ops with
 * read values removed, as a recorder would.
 */
public final class HistoryBuilder {
    public static final int FINAL_PROCESS = 999;
    private final List<Event> events = new ArrayList<>();
    private final Map<Integer, Event> open = new HashMap<>();

    public static Mop r(long key, long... seen) {
        List<Long> list = new ArrayList<>();
        for (long e : seen) {
            list.add(e);
        }
        return Mop.read(key, list);
    }

    public static Mop append(long key, long element) {
        return Mop.append(key, element);
    }

    /** Invokes {@code f}; returns the operation's id. */
    public int invoke(int process, String f, Mop... mops) {
        List<Mop> asked = new ArrayList<>();
        for (Mop m : mops) {
            asked.add(m.isRead() || Names.LEDGER.equals(m.f()) ? m.withValue(null) : m);
        }
        Event e = add(OpType.INVOKE, process, f, asked, null);
        open.put(process, e);
        return e.index();
    }

    public HistoryBuilder ok(int process, Mop... mops) {
        add(OpType.OK, process, open.remove(process).f(), List.of(mops), null);
        return this;
    }

    public HistoryBuilder fail(int process, String error) {
        Event invoke = open.remove(process);
        add(OpType.FAIL, process, invoke.f(), invoke.value(), error);
        return this;
    }

    public HistoryBuilder info(int process, String error) {
        Event invoke = open.remove(process);
        add(OpType.INFO, process, invoke.f(), invoke.value(), error);
        return this;
    }

    /** A read-write transaction invoked and acknowledged at once. */
    public int txn(int process, Mop... mops) {
        int id = invoke(process, Names.TXN, mops);
        ok(process, mops);
        return id;
    }

    /** A read-only transaction invoked and acknowledged at once. */
    public int read(int process, Mop... mops) {
        int id = invoke(process, Names.READ, mops);
        ok(process, mops);
        return id;
    }

    /** A transaction invoked and failed at once (523: it did not commit). */
    public int failed(int process, Mop... mops) {
        int id = invoke(process, Names.TXN, mops);
        fail(process, "523 conflict");
        return id;
    }

    /** A transaction invoked and answered with an unknown outcome at once (1077). */
    public int unknown(int process, Mop... mops) {
        int id = invoke(process, Names.TXN, mops);
        info(process, "1077 outcome unknown");
        return id;
    }

    /** The read of everything after the clients stopped. */
    public int finalRead(Mop... mops) {
        int id = invoke(FINAL_PROCESS, Names.FINAL_READ, mops);
        ok(FINAL_PROCESS, mops);
        return id;
    }

    public History build() {
        return History.of(events);
    }

    private Event add(OpType type, int process, String f, List<Mop> value, String error) {
        Event e = new Event(events.size(), type, process, f, events.size() * 1_000_000L, value, error);
        events.add(e);
        return e;
    }
}
