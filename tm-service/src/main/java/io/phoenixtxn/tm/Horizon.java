package io.phoenixtxn.tm;

/**
 * The GC horizon a TM publishes. {@link #gc()}: every live transaction's start is at or above it, and no transaction
 * below it can commit any more, so compactions may drop what only older snapshots could read.
 * {@link #commitPointSafe()}: a lower horizon, the one that was in force long enough ago that no transaction below it
 * can still be writing its commit point (the client gives up on that after phoenix.txn.commit.point.timeout.ms), so an
 * invalid marker of such a transaction fences nothing any more and may be removed. Both only grow.
 */
public record Horizon(long gc, long commitPointSafe) {
    /** What a TM answers while it cannot tell (a new primary waiting for clients to re-announce their transactions). */
    public static final Horizon UNKNOWN = new Horizon(-1, -1);

    public Horizon {
        if (commitPointSafe > gc) {
            throw new IllegalArgumentException("commit-point horizon " + commitPointSafe + " above the GC horizon "
                    + gc);
        }
    }

    public boolean isKnown() {
        return gc >= 0;
    }

    @Override
    public String toString() {
        return isKnown() ? "Horizon{gc=" + gc + ", commitPointSafe=" + commitPointSafe + "}" : "Horizon{unknown}";
    }
}
