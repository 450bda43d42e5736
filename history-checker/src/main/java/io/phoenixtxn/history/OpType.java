package io.phoenixtxn.history;

import java.util.Locale;

/**
 * What an event of a history says (Jepsen's vocabulary): a client invoked an operation, or the operation completed
 * as {@code ok} (acknowledged: it took effect), {@code fail} (known not to have taken effect) or {@code info} (its
 * outcome is unknown: it may or may not have taken effect, and a checker must accept either).
 */
public enum OpType {
    INVOKE, OK, FAIL, INFO;

    /** The name used in history files: lower case. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static OpType fromWireName(String name) {
        for (OpType t : values()) {
            if (t.wireName().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown event type '" + name + "' (expected invoke, ok, fail or info)");
    }
}
