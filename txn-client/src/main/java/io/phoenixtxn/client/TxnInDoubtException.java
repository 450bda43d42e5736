package io.phoenixtxn.client;

import java.io.IOException;

/**
 * The commit point of a transaction may or may not have been written, and the client could not find out (the
 * commit table was unreachable both for the commit and for settling it). The transaction is not rolled back: its
 * commit-table entry, if it landed, makes it committed. Readers settle it (they resolve the entry, or force-abort
 * a writer that never reached it) and the commit-table cleaner completes it. Retrying blindly may apply it twice.
 */
public class TxnInDoubtException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long txId;

    public TxnInDoubtException(long txId, IOException cause) {
        super("Outcome of transaction " + txId + " is unknown: its commit-table write and the check that followed"
                + " both failed (" + cause.getMessage() + "). It may have committed, so it was not rolled back;"
                + " readers and the commit-table cleaner settle it once the commit table is reachable. Check the data"
                + " before retrying it.", cause);
        this.txId = txId;
    }

    public long txId() {
        return txId;
    }
}
