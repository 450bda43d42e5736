package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathInDoubtException;
import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;

import java.sql.SQLException;

/**
 * What the application sees when the bwc of a statement routed onto the fast path fails (design.md sec. 4.11): an
 * abort a regular transaction gets past is no error (the provider retries the row as one); a FENCED refusal is SQL 523,
 * the code Phoenix's commit retry acts on (it refreshes the table's metadata, which now has the index being built, and
 * re-sends the row with its maintenance); a write in doubt is an error that says the outcome is unknown, and is never
 * retried; any other failure of the write itself is reported as in doubt too (the request may have reached the
 * region server: a failure after it, e.g. decoding the answer, says nothing about what it applied); only a failure
 * before anything was sent (opening the table) wrote nothing.
 */
final class FastPathOutcomes {
    private FastPathOutcomes() {
    }

    /** Null: retry as a regular transaction. Otherwise the error to throw. */
    static SQLException ofAbort(FastPathAbortedException e, TableName table) {
        if (e.reason().regularRetryHelps()) {
            return null;
        }
        return new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION)
                .setMessage("The fast-path write to " + table + " was refused (" + e.reason() + "): an index is being"
                        + " created on it, nothing was written; retry the statement, which then maintains the index")
                .setRootCause(e).build().buildException();
    }

    static SQLException ofInDoubt(FastPathInDoubtException e, TableName table) {
        return SqlErrors.failed("The outcome of the fast-path write to " + table + " is unknown: it may or may not"
                + " have been applied, and it was not retried; read the row to find out (" + e.getMessage() + ")", e);
    }

    /** A failure before the write was sent: nothing was written. */
    static SQLException ofFailureBeforeSend(Exception e, TableName table) {
        return SqlErrors.failed("The fast-path write to " + table + " failed before it was sent; nothing was written: "
                + e.getMessage(), e);
    }

    /**
     * Any other failure of the write: it may have reached the region server, so its outcome is unknown and it is not
     * retried (a retry could apply it twice).
     */
    static SQLException ofFailure(Exception e, TableName table) {
        return SqlErrors.failed("The outcome of the fast-path write to " + table + " is unknown: it failed after it may"
                + " have been sent, may or may not have been applied, and was not retried; read the row to find out ("
                + e + ")", e);
    }
}
