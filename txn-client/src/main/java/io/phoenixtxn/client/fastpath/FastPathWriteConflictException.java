package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A regular transaction's tentative write refused by the region server: the row holds a fast-path commit newer than
 * the transaction's start (VLDB'18 Alg. 4 prePut, Figure 3). Fast-path commits never reach the TM's conflict table, so
 * this is where such a write-write conflict is found; the transaction must abort and retry. Nothing of this write
 * landed. The message starts with {@value FastPathAbortedException#SQL_PREFIX} (Phoenix's SQL error 523).
 */
public class FastPathWriteConflictException extends DoNotRetryIOException {
    private static final long serialVersionUID = 1L;

    /** Rebuilds the exception from its message (see {@link FastPathAbortedException#FastPathAbortedException}). */
    public FastPathWriteConflictException(String message) {
        super(FastPathFailures.ownMessage(message, FastPathWriteConflictException.class));
    }

    /** The region server's exception for a write of transaction {@code writer} to {@code row} of {@code table}. */
    public static FastPathWriteConflictException of(String table, String row, long writer, long fastPathCommit) {
        return new FastPathWriteConflictException(FastPathAbortedException.SQL_PREFIX + "Transaction " + writer
                + " aborted: row " + row + " of " + table + " was written by a fast-path transaction that committed at "
                + fastPathCommit + ", after this transaction started (a write-write conflict); roll back and retry the"
                + " transaction");
    }
}
