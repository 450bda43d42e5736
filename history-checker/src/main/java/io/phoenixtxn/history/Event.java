package io.phoenixtxn.history;

import java.util.List;
import java.util.Objects;

/**
 * One line of a history: an invocation or a completion by a process (a client thread on one connection; a process
 * that saw an unknown outcome is retired and its thread continues as a new process, so a process has at most one
 * operation in flight and its operations are in session order).
 *
 * @param index   position in the history, from 0
 * @param time    nanoseconds since the recorder started (one clock per history)
 * @param value   micro-ops: on invoke what is asked (reads without values), on ok what happened
 * @param error   why a fail or info completion ended as it did, else null
 */
public record Event(int index, OpType type, int process, String f, long time, List<Mop> value, String error) {
    public Event {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(f, "f");
        value = value == null ? List.of() : List.copyOf(value);
    }

    @Override
    public String toString() {
        return Edn.event(this);
    }
}
