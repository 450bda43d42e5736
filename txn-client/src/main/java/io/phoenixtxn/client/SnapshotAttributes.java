package io.phoenixtxn.client;

/** Names of the operation attributes that carry a transaction to the region observer. */
public final class SnapshotAttributes {
    /** Encoded {@link io.phoenixtxn.snapshot.Snapshot} on gets and scans: "filter this read by my snapshot". */
    public static final String SNAPSHOT = "phoenix.txn.snapshot";
    /**
     * The commit table the client commits to (UTF-8 table name, {@link TxnClientConfig#COMMIT_TABLE}), on snapshot
     * reads and tentative writes. A region server resolving pending versions against another table would read the
     * client's commits as not committed and force-abort them in the wrong table, so it refuses such operations.
     * Absent (older clients, Apache Omid's): not checked.
     */
    public static final String COMMIT_TABLE = TxnClientConfig.COMMIT_TABLE;
    /**
     * On tentative writes of a replay ({@link Transaction#isReplay()}): the 8-byte start of its conflict window, below
     * its own start. The region server checks fast-path commits against it (they never reach the TM's conflict
     * table), as the TM checks regular ones.
     */
    public static final String CONFLICTS_SINCE = "phoenix.txn.conflicts.since";
    /** Apache Omid's read attribute; seeing it on a phoenix-txn table means an Omid client reached it. */
    public static final String OMID_TRANSACTION = "__OMID_TRANSACTION__";

    private SnapshotAttributes() {
    }
}
