package io.phoenixtxn.snapshot;

/**
 * Walks the versions of one column, newest first, and says which ones a read returns. SNAPSHOT and
 * SNAPSHOT_EXCLUDE_CURRENT return the newest visible version; SNAPSHOT_ALL returns every visible own version and
 * the newest visible committed version below them. Stateful: call {@link #reset()} at every new column.
 */
public final class ColumnVersionSelector {
    /** What to do with one version. */
    public enum Decision {
        /** Return it; older versions of this column are not needed. */
        INCLUDE_AND_NEXT_COLUMN,
        /** Return it and keep looking at older versions (SNAPSHOT_ALL own writes). */
        INCLUDE,
        /** Not visible; look at the next older version. */
        SKIP,
        /** Not needed, and no older version of this column is needed either. */
        NEXT_COLUMN
    }

    private final Snapshot snapshot;
    private boolean done;

    public ColumnVersionSelector(Snapshot snapshot) {
        this.snapshot = snapshot;
    }

    public void reset() {
        done = false;
    }

    /** Has the walk of this column ended (every further version is {@link Decision#NEXT_COLUMN})? */
    public boolean isDone() {
        return done;
    }

    public Decision offer(long version, long commitTs) {
        if (done) {
            return Decision.NEXT_COLUMN;
        }
        if (!Visibility.isVisible(snapshot, version, commitTs)) {
            return Decision.SKIP;
        }
        if (keepsLookingPast(version)) {
            return Decision.INCLUDE;
        }
        done = true;
        return Decision.INCLUDE_AND_NEXT_COLUMN;
    }

    /**
     * Does this version, if the walk of its column reaches it, end the walk ({@link Decision#INCLUDE_AND_NEXT_COLUMN})?
     * Then nothing older in the column matters to this snapshot, not even the commit timestamps of older versions:
     * a read that meets a column's commit cells before its data (newest first) can stop collecting them at the first
     * one for which this holds. Stateless; the same rule {@link #offer} applies.
     */
    public boolean endsColumn(long version, long commitTs) {
        return Visibility.isVisible(snapshot, version, commitTs) && !keepsLookingPast(version);
    }

    /** SNAPSHOT_ALL returns every visible own version and goes on to the newest committed one below them. */
    private boolean keepsLookingPast(long visibleVersion) {
        return snapshot.level() == VisibilityLevel.SNAPSHOT_ALL && Visibility.isOwnWrite(snapshot, visibleVersion);
    }
}
