package io.phoenixtxn.snapshot;

/**
 * The "committed below" rule for a table that was written before it became transactional ({@code ALTER TABLE ...
 * SET TRANSACTIONAL=true}). Its old cells have no commit cells; they carry plain wall-clock milliseconds as
 * versions (HBase's server time, or a Phoenix client's SCN), while every version a transaction writes is a TM
 * timestamp, milliseconds x 1,000,000 ({@link TimestampLayout}). So in such a table a version without a commit cell
 * below {@link #BOUND} is committed, at a commit timestamp equal to its version: below the start of every
 * transaction (visible to all of them, ordered before every transactional write, so later row deletes and updates
 * mask it as usual).
 *
 * <p>Why the rule is exact. {@link #BOUND} is the first TM timestamp of 1970-01-12 ({@code 10^9} ms x 10^6 =
 * 10^15):
 * <ul>
 *   <li>no version a transaction writes is below it: tentative versions, checkpoints and fast-path versions lie at or
 *       above their slot start, which is at or above the TM's wall clock in ms x 10^6; a TM whose clock says later
 *       than 1970-01-12 never issues below the bound. Region servers also refuse any write below the bound to such a
 *       table (a TM with a clock that wrong, or a non-transactional writer), so no such cell can enter it after the
 *       switch;</li>
 *   <li>no pre-switch cell is at or above it: a millisecond timestamp of 10^15 is the year 33658 (Phoenix refuses
 *       the switch for tables with a ROW_TIMESTAMP column, the one way a user picks cell timestamps).</li>
 * </ul>
 * Versions with a commit cell are decided by it, as everywhere: the rule only answers for versions without one.
 *
 * <p>TTL: a family's TTL is measured on commit times in TM units; a pre-switch cell's commit timestamp is in
 * milliseconds, so {@link #ttlTimeOf} scales it to the TM timestamp of its millisecond.
 */
public final class PreTransactionalCells {
    /** Versions below this, without a commit cell, are pre-transactional (committed at their version). */
    public static final long BOUND = TimestampLayout.firstSlotOfMillis(1_000_000_000L);

    /** A table that was transactional from its creation: the rule never applies. */
    public static final PreTransactionalCells NONE = new PreTransactionalCells(false);
    /** A table that became transactional after it had been written. */
    public static final PreTransactionalCells CONVERTED = new PreTransactionalCells(true);

    private final boolean converted;

    private PreTransactionalCells(boolean converted) {
        this.converted = converted;
    }

    public static PreTransactionalCells of(boolean converted) {
        return converted ? CONVERTED : NONE;
    }

    /** Whether the table was converted (the rule applies, and writes below {@link #BOUND} are refused). */
    public boolean converted() {
        return converted;
    }

    /** Is this version, which has no commit cell, a cell written before the table became transactional? */
    public boolean covers(long version) {
        return converted && version >= 0 && version < BOUND;
    }

    /**
     * The commit timestamp of a version without a commit cell when this rule decides it (its version), or
     * {@link Visibility#NOT_COMMITTED} when the writer must be resolved as usual.
     */
    public long commitTimestampOf(long version) {
        return covers(version) ? version : Visibility.NOT_COMMITTED;
    }

    /** Would a write at this version be refused by a converted table (a non-transactional or pre-switch writer)? */
    public boolean refusesWriteAt(long version) {
        return converted && version < BOUND;
    }

    /**
     * The commit time a TTL is measured on, in TM units: a pre-switch cell's commit timestamp (milliseconds) is
     * scaled to its millisecond's first TM timestamp; any other commit timestamp is returned as it is.
     *
     * @param version  the cell's version
     * @param commitTs its commit timestamp
     */
    public long ttlTimeOf(long version, long commitTs) {
        return covers(version) && commitTs == version ? TimestampLayout.firstSlotOfMillis(commitTs) : commitTs;
    }

    @Override
    public String toString() {
        return converted ? "PreTransactionalCells{committed below " + BOUND + "}" : "PreTransactionalCells{none}";
    }
}
