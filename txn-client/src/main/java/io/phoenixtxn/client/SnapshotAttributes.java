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
    /** Apache Omid's read attribute; seeing it on a phoenix-txn table means an Omid client reached it. */
    public static final String OMID_TRANSACTION = "__OMID_TRANSACTION__";

    private SnapshotAttributes() {
    }
}
