package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.DoNotRetryIOException;

import java.util.Locale;

/**
 * A fast-path operation (VLDB'18 sec. 4, Alg. 4 putVersion) that the region server refused: nothing was written, and
 * the outcome is known. Thrown on the region server and rebuilt on the client from its class name and message, so the
 * message carries the {@link Reason} and starts with {@value #SQL_PREFIX}: Phoenix maps such a message to its SQL error
 * 523 (a conflict: retry). A {@link org.apache.hadoop.hbase.DoNotRetryIOException}: HBase's client never resends it.
 */
public class FastPathAbortedException extends DoNotRetryIOException {
    private static final long serialVersionUID = 1L;
    /** Phoenix's form of its SQL error 523 (SQLState 42900), which it parses out of a server message. */
    public static final String SQL_PREFIX = "ERROR 523 (42900): ";
    private static final String TAG = "Fast path aborted [";

    /** Why; and whether the same work can commit as a regular transaction. */
    public enum Reason {
        /** The row has a version whose writer may still commit (a regular transaction in flight). */
        TENTATIVE_VERSION(true),
        /** A version committed after the one the caller read (wc, brwc): the read is stale. */
        NEWER_COMMIT(true),
        /**
         * The region server could not number the write: its version clock's slot is used up and no fresh one is
         * reserved, or a region opened here has not yet learnt a fresh timestamp from the TM.
         */
        SLOT_UNAVAILABLE(true),
        /**
         * The table does not have the fast path enabled (it is opt-in, and an index build turns it off: fast-path
         * writes maintain no index). The retry must maintain the table's indexes, which only its metadata (Phoenix)
         * knows.
         */
        FENCED(false);

        private final boolean regularRetryHelps;

        Reason(boolean regularRetryHelps) {
            this.regularRetryHelps = regularRetryHelps;
        }

        /** True when running the same work as a regular transaction is the documented fallback. */
        public boolean regularRetryHelps() {
            return regularRetryHelps;
        }
    }

    private final Reason reason;

    /**
     * Rebuilds the exception from its message. The HBase client does this with a remote exception, whose text is the
     * server's whole {@code toString()} and stack: only the message itself is kept.
     */
    public FastPathAbortedException(String message) {
        super(FastPathFailures.ownMessage(message, FastPathAbortedException.class));
        this.reason = reasonIn(message);
    }

    /** The region server's exception for {@code reason}; {@code detail} says what was found and what to do. */
    public static FastPathAbortedException of(Reason reason, String detail) {
        return new FastPathAbortedException(SQL_PREFIX + TAG + reason + "] " + detail);
    }

    public Reason reason() {
        return reason;
    }

    private static Reason reasonIn(String message) {
        if (message != null) {
            int at = message.indexOf(TAG);
            if (at >= 0) {
                int end = message.indexOf(']', at);
                if (end > at) {
                    try {
                        return Reason.valueOf(message.substring(at + TAG.length(), end).toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException unknown) {
                        // a newer server's reason: treat as the one no retry on the regular path can get past
                    }
                }
            }
        }
        return Reason.FENCED;
    }
}
