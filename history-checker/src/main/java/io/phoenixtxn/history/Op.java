package io.phoenixtxn.history;

import java.util.List;

/**
 * One operation of a history: an invocation paired with its completion. An invocation that never completed (the
 * client died, or the run ended with it in flight) is an {@code info} operation completing at
 * {@link Long#MAX_VALUE}: its outcome is unknown.
 *
 * <p>Identity: {@link #id()} is the index of the invoke event, unique in a history; checkers name operations
 * {@code T<id>}.
 *
 * @param invokeValue the micro-ops asked for (an info operation's writes are known from here)
 * @param value       the completion's micro-ops for ok (with read results); the invocation's otherwise
 */
public record Op(int id, int process, String f, OpType type, long invokeTime, long completeTime,
                 int completeIndex, List<Mop> invokeValue, List<Mop> value, String error) {
    public Op {
        if (type == OpType.INVOKE) {
            throw new IllegalArgumentException("an operation completes as ok, fail or info, not invoke");
        }
        invokeValue = List.copyOf(invokeValue);
        value = List.copyOf(value);
    }

    public boolean isOk() {
        return type == OpType.OK;
    }

    public boolean isFail() {
        return type == OpType.FAIL;
    }

    public boolean isInfo() {
        return type == OpType.INFO;
    }

    /** The name checkers print: {@code T} and the invoke index. */
    public String name() {
        return "T" + id;
    }

    /** The completed operation in EDN-like text, as a checker prints it. */
    @Override
    public String toString() {
        return Edn.op(this);
    }
}
