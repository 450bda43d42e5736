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
 *
 * <p>Several JVMs can record one history on one clock: times are {@code System.nanoTime() - origin}, and on Linux
 * {@code System.nanoTime()} reads {@code CLOCK_MONOTONIC}, one clock for every process of the machine. A JVM killed
 * mid-run leaves its events in a file ({@link EventSink}); another JVM {@linkplain #continuing continues} that
 * history with the same origin, and a time earlier than the history's last event (another clock) is refused.
 */
public final class Recorder {
    private final long origin;
    private final EventSink sink;
    private final List<Event> events = new ArrayList<>();
    private final Map<Integer, Event> inFlight = new HashMap<>();
    private final Map<String, Long> okCounts = new HashMap<>();
    private long lastTime = Long.MIN_VALUE;

    /** A history of its own: times from now, events kept in memory only. */
    public Recorder() {
        this(System.nanoTime(), EventSink.NONE);
    }

    /**
     * @param originNanos a {@code System.nanoTime()} value: event times are measured from it (shared by every JVM
     *                    that records on the same clock)
     * @param sink        receives every event as it is recorded
     */
    public Recorder(long originNanos, EventSink sink) {
        this.origin = originNanos;
        this.sink = sink;
    }

    /**
     * A recorder that goes on with {@code existing} (read back from the file of a JVM that died): it holds the
     * existing events, its operations still in flight stay in flight for good (their process is gone, so they are
     * unknown), and new events follow with the next indices. Only events are sent to {@code sink}
     * from here on; the existing ones are assumed to be where the sink writes.
     */
    public static Recorder continuing(History existing, long originNanos, EventSink sink) {
        Recorder recorder = new Recorder(originNanos, sink);
        for (Event e : existing.events()) {
            recorder.events.add(e);
            recorder.lastTime = e.time();
            if (e.type() == OpType.INVOKE) {
                recorder.inFlight.put(e.process(), e);
            } else {
                recorder.inFlight.remove(e.process());
                if (e.type() == OpType.OK) {
                    recorder.okCounts.merge(e.f(), 1L, Long::sum);
                }
            }
        }
        return recorder;
    }

    /** A process number no event of this history used yet (for a JVM that continues a history). */
    public synchronized int unusedProcess() {
        int max = -1;
        for (Event e : events) {
            max = Math.max(max, e.process());
        }
        return max + 1;
    }

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
        long time = System.nanoTime() - origin;
        if (time < lastTime) {
            throw new IllegalStateException("the clock is behind the history: event time " + time + " ns after the"
                    + " origin, the history's last event at " + lastTime + " ns (a recorder continuing another JVM's"
                    + " history needs its origin and the same machine's monotonic clock)");
        }
        Event e = new Event(events.size(), type, process, f, time, value, error);
        sink.accept(e);
        events.add(e);
        lastTime = time;
        return e;
    }
}
