package io.phoenixtxn.history.record;

import io.phoenixtxn.history.Event;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.OpType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Records a history from many client threads. Each call appends one event under the recorder's lock, taking the
 * time there, so event order, indices and times agree (an operation invoked after another completed has a later
 * invoke time). Cheap next to a JDBC round trip: one short critical section per event.
 *
 * <p>Invariant (checked): a process has at most one operation in flight, and a completion names a process that has
 * one. {@link #history()} may be taken at any time; operations still in flight then are unknown (info).
 */
public final class Recorder {
    private final long origin = System.nanoTime();
    private final List<Event> events = new ArrayList<>();
    private final Map<Integer, Event> inFlight = new HashMap<>();
    private final Map<String, Long> okCounts = new HashMap<>();

    /** Records that {@code process} invokes {@code f} with {@code value}; returns the event index. */
    public synchronized int invoke(int process, String f, List<Mop> value) {
        if (inFlight.containsKey(process)) {
            throw new IllegalStateException("process " + process + " already has " + inFlight.get(process)
                    + " in flight");
        }
        Event e = append(OpType.INVOKE, process, f, value, null);
        inFlight.put(process, e);
        return e.index();
    }

    /** The operation in flight on {@code process} took effect; {@code value} carries what it read. */
    public synchronized void ok(int process, List<Mop> value) {
        Event invoke = complete(process);
        append(OpType.OK, process, invoke.f(), value, null);
        okCounts.merge(invoke.f(), 1L, Long::sum);
        notifyAll();
    }

    /** The operation in flight on {@code process} certainly did not take effect. */
    public synchronized void fail(int process, String error) {
        Event invoke = complete(process);
        append(OpType.FAIL, process, invoke.f(), invoke.value(), error);
    }

    /** The outcome of the operation in flight on {@code process} is unknown: it may or may not have taken effect. */
    public synchronized void info(int process, String error) {
        Event invoke = complete(process);
        append(OpType.INFO, process, invoke.f(), invoke.value(), error);
    }

    /** A snapshot of the history so far. */
    public synchronized History history() {
        return History.of(events);
    }

    /** How many operations of function {@code f} were acknowledged so far. */
    public synchronized long okCount(String f) {
        return okCounts.getOrDefault(f, 0L);
    }

    /**
     * Waits until at least {@code atLeast} operations of function {@code f} were acknowledged, or {@code max}
     * passed; returns whether the count was reached.
     */
    public synchronized boolean awaitOkCount(String f, long atLeast, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (okCount(f) < atLeast) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000), 0);
        }
        return true;
    }

    private Event complete(int process) {
        Event invoke = inFlight.remove(process);
        if (invoke == null) {
            throw new IllegalStateException("process " + process + " has no operation in flight");
        }
        return invoke;
    }

    private Event append(OpType type, int process, String f, List<Mop> value, String error) {
        Event e = new Event(events.size(), type, process, f, System.nanoTime() - origin, value, error);
        events.add(e);
        return e;
    }
}
