package io.phoenixtxn.client;

/** Names of the operation attributes that carry a transaction to the region observer. */
public final class SnapshotAttributes {
    /** Encoded {@link io.phoenixtxn.snapshot.Snapshot} on gets and scans: "filter this read by my snapshot". */
    public static final String SNAPSHOT = "phoenix.txn.snapshot";
    /** Apache Omid's read attribute; seeing it on a phoenix-txn table means an Omid client reached it. */
    public static final String OMID_TRANSACTION = "__OMID_TRANSACTION__";

    private SnapshotAttributes() {
    }
}
