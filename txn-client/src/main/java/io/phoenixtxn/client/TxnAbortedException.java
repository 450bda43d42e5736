package io.phoenixtxn.client;

import io.phoenixtxn.tm.AbortReason;

import java.io.IOException;

/** The transaction aborted and left nothing visible; {@link #reason()} says why and whether a retry can help. */
public class TxnAbortedException extends IOException {
    private static final long serialVersionUID = 1L;
    private final AbortReason reason;
    private final long txId;

    public TxnAbortedException(long txId, AbortReason reason) {
        super("Transaction " + txId + " aborted: " + reason.explanation());
        this.reason = reason;
        this.txId = txId;
    }

    public AbortReason reason() {
        return reason;
    }

    public long txId() {
        return txId;
    }
}
