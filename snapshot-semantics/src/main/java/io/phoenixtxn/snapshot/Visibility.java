package io.phoenixtxn.snapshot;

/**
 * The one visibility function of phoenix-txn. The client, the region observer and (later) the compactor all ask it,
 * and nothing else decides whether a version belongs to a snapshot.
 */
public final class Visibility {
    /** Commit timestamp of a version whose writer has not committed (pending, aborted or invalidated). */
    public static final long NOT_COMMITTED = -1L;

    private Visibility() {
    }

    /** True when {@code version} was written by the transaction that owns {@code snapshot}. */
    public static boolean isOwnWrite(Snapshot snapshot, long version) {
        return !TimestampLayout.isFastPathVersion(version) && TimestampLayout.txIdOf(version) == snapshot.txId();
    }

    /**
     * Does deciding this version take its writer's commit timestamp? Not for the reader's own writes (the level
     * decides them), nor for versions at or above the reader's start: their writer started after the reader, or
     * is a fast-path write issued after it, so any commit comes after the reader's start and {@link #isVisible}
     * says no whatever the commit timestamp. Readers leave the commit cells of such versions alone.
     */
    public static boolean needsCommitTimestamp(Snapshot snapshot, long version) {
        return !isOwnWrite(snapshot, version) && version < snapshot.txId();
    }

    /**
     * Is this version of a cell part of the snapshot?
     *
     * @param snapshot the reader
     * @param version  the cell's HBase timestamp (the writer's write pointer, or a fast-path version)
     * @param commitTs the writer's commit timestamp, or {@link #NOT_COMMITTED}; ignored for the reader's own writes
     */
    public static boolean isVisible(Snapshot snapshot, long version, long commitTs) {
        if (isOwnWrite(snapshot, version)) {
            switch (snapshot.level()) {
                case SNAPSHOT_EXCLUDE_CURRENT:
                    // Before the statement's checkpoint (read pointer), and never the current write pointer.
                    return version <= snapshot.readPointer() && version < snapshot.writePointer();
                case SNAPSHOT:
                case SNAPSHOT_ALL:
                default:
                    return version <= snapshot.writePointer();
            }
        }
        return commitTs != NOT_COMMITTED && commitTs < snapshot.txId();
    }

    /**
     * The position of a visible version in the snapshot's order of writes: committed versions by commit timestamp,
     * own writes after all of them by write pointer. Used to decide whether a family delete masks a cell: a visible
     * family delete masks every visible version of the family at or below its own order (HBase's rule that a
     * delete masks puts with equal timestamps).
     */
    public static long orderOf(Snapshot snapshot, long version, long commitTs) {
        return isOwnWrite(snapshot, version) ? version : commitTs;
    }

    /**
     * Does a visible family delete hide a visible cell of the same family? It does when the cell comes earlier in
     * the snapshot's order of writes, or at the same point (one transaction) with a version at or below the
     * delete's: a delete masks puts of equal version (HBase's rule), while a row re-inserted after its delete in the
     * same transaction carries a newer version and survives, before and after the commit.
     */
    public static boolean isMaskedByFamilyDelete(Snapshot snapshot, long deleteVersion, long deleteCommitTs,
                                                 long cellVersion, long cellCommitTs) {
        long deleteOrder = orderOf(snapshot, deleteVersion, deleteCommitTs);
        long cellOrder = orderOf(snapshot, cellVersion, cellCommitTs);
        return cellOrder < deleteOrder || (cellOrder == deleteOrder && cellVersion <= deleteVersion);
    }
}
