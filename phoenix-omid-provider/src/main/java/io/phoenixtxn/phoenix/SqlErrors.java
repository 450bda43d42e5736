package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.TxnAbortedException;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;

import java.sql.SQLException;

/** Maps our failures to the SQLException codes Phoenix acts on. */
final class SqlErrors {
    private SqlErrors() {
    }

    /** Every abort is a conflict to Phoenix (code 523, SQLState 42900): that is the code its commit retry knows. */
    static SQLException aborted(TxnAbortedException e) {
        return new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION).setMessage(e.getMessage())
                .setRootCause(e).build().buildException();
    }

    /** Anything else that stops a transaction (TM unreachable, HBase errors): TRANSACTION_FAILED (1077). */
    static SQLException failed(String message, Throwable cause) {
        return new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_FAILED).setMessage(message)
                .setRootCause(cause).build().buildException();
    }

    static SQLException of(String action, Exception e) {
        if (e instanceof TxnAbortedException) {
            return aborted((TxnAbortedException) e);
        }
        if (e instanceof SQLException) {
            return (SQLException) e;
        }
        return failed(action + " failed: " + e.getMessage(), e);
    }
}
