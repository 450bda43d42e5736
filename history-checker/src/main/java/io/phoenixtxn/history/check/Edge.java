package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Op;

/** One edge of a reported cycle, with the evidence that put it there. */
public record Edge(Op from, Op to, EdgeKind kind, String why) {
    @Override
    public String toString() {
        return from.name() + " -" + kind.label() + "-> " + to.name() + ": " + why;
    }
}
