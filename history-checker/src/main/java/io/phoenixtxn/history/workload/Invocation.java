package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.Mop;

import java.util.List;

/** What a client is about to do: an operation function and its micro-ops (reads without values). */
public record Invocation(String f, List<Mop> value) {
    public Invocation {
        value = List.copyOf(value);
    }
}
