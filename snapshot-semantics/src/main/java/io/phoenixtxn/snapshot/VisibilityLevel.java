package io.phoenixtxn.snapshot;

/**
 * What a transaction sees of its own writes (VLDB'18 sec. 6.2). Committed data of other transactions is visible
 * at every level exactly when it committed before the transaction started.
 */
public enum VisibilityLevel {
    /** Own writes up to and including the current write pointer (read-your-own-writes). */
    SNAPSHOT,
    /** Own writes before the last checkpoint only: a statement never reads what it is writing (SIX). */
    SNAPSHOT_EXCLUDE_CURRENT,
    /** Every version the transaction wrote, plus the snapshot version below them (index rollback). */
    SNAPSHOT_ALL;

    private static final VisibilityLevel[] VALUES = values();

    public static VisibilityLevel fromOrdinal(int ordinal) {
        if (ordinal < 0 || ordinal >= VALUES.length) {
            throw new IllegalArgumentException("Unknown visibility level ordinal " + ordinal);
        }
        return VALUES[ordinal];
    }
}
