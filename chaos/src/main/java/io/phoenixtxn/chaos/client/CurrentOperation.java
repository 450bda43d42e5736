package io.phoenixtxn.chaos.client;

import io.phoenixtxn.history.workload.Invocation;

/**
 * The operation each client thread is running, set by {@link TrackedWorkload} around every apply, so the halt
 * switch (called by the transaction client on the committing thread) knows which recorded operation it kills.
 */
final class CurrentOperation {
    private static final ThreadLocal<Invocation> CURRENT = new ThreadLocal<>();

    private CurrentOperation() {
    }

    static void set(Invocation invocation) {
        CURRENT.set(invocation);
    }

    static void clear() {
        CURRENT.remove();
    }

    /** The workload operation this thread runs, or null (setup, final read, anything outside the workload). */
    static Invocation get() {
        return CURRENT.get();
    }
}
