package io.phoenixtxn.chaos.client;

import java.util.Locale;

/**
 * Where a client JVM halts itself for the chaos driver's client-kill faults: right after the TM decided to commit a
 * transaction and before its commit point (the commit-table write) was written, or right after the commit point and
 * before any commit cell (VLDB'18 Alg. 3, the two crash points of a client). The first must leave the transaction
 * aborted for good, the second committed; either way the history records the operation as unknown.
 */
public enum HaltPoint {
    AFTER_TM_DECISION("after-tm-decision"),
    AFTER_COMMIT_POINT("after-commit-point");

    private final String wireName;

    HaltPoint(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static HaltPoint parse(String text) {
        String wanted = text.trim().toLowerCase(Locale.ROOT);
        for (HaltPoint p : values()) {
            if (p.wireName.equals(wanted)) {
                return p;
            }
        }
        throw new IllegalArgumentException("no halt point '" + text + "' (after-tm-decision or after-commit-point)");
    }
}
