package io.phoenixtxn.client;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A transaction's snapshot is older than the GC horizon: compactions may have removed versions it would read, so
 * it must not read on (or commit). Raised by the client for a transaction the TM let expire, and by region servers
 * for a read whose start is below the horizon they garbage-collect at. Not retryable as such: retry the transaction.
 */
public class SnapshotTooOldException extends DoNotRetryIOException {
    private static final long serialVersionUID = 1L;

    public SnapshotTooOldException(String message) {
        super(message);
    }
}
