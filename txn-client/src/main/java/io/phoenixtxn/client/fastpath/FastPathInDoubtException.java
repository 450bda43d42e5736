package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A fast-path write whose outcome is unknown: it may have been applied, once, or not at all. The region server throws
 * it for a carrier HBase recognised as resent (its nonce was seen) whose first attempt's answer it no longer has: the
 * first attempt may have written, or may have been refused (a brwc whose read was stale, a bwc of another writer's
 * version). Neither "applied" nor "aborted" may be reported, and neither a retry nor a regular-path fallback is safe
 * (the write could land twice): the caller must read the row to learn what happened. A
 * {@link DoNotRetryIOException}: HBase's client never resends it.
 */
public class FastPathInDoubtException extends DoNotRetryIOException {
    private static final long serialVersionUID = 1L;
    private static final String TAG = "Fast path write in doubt: ";

    /** Rebuilds the exception from its message (see {@link FastPathAbortedException#FastPathAbortedException}). */
    public FastPathInDoubtException(String message) {
        super(FastPathFailures.ownMessage(message, FastPathInDoubtException.class));
    }

    /** {@code detail} says why the outcome is unknown. */
    public static FastPathInDoubtException of(String detail) {
        return new FastPathInDoubtException(TAG + detail + "; read the row to learn whether it was applied (do not"
                + " retry blindly: it may apply twice)");
    }
}
