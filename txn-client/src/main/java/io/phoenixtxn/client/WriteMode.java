package io.phoenixtxn.client;

/**
 * How a {@link TransactionalTable} writes (architecture review 4.9: named modes instead of positional booleans).
 * Invariant: every write of a transaction is tentative and reaches the commit table through the commit, except in
 * {@link #COMMITTED_ON_WRITE}, whose cells carry their commit cell from the start.
 */
public enum WriteMode {
    /** Tentative cells, rows in the write set: the TM checks write-write conflicts (the default). */
    CHECKED,
    /**
     * Tentative cells, no rows in the write set: no conflict detection (Phoenix's immutable tables, whose rows are
     * written once). Fences still apply: the tables are in the write set.
     */
    CONFLICT_FREE,
    /**
     * Cells committed as they land, at the transaction's write pointer, with no commit-table entry (an online index
     * population at its fence, VLDB'18 sec. 6.1). The caller writes them; a tentative write through such a table is
     * treated as {@link #CONFLICT_FREE}.
     */
    COMMITTED_ON_WRITE;

    /** Do writes in this mode put their rows in the write set for the TM's conflict detection? */
    public boolean detectsConflicts() {
        return this == CHECKED;
    }
}
