package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.OpType;

import java.sql.SQLException;

/**
 * What an error says about an operation's outcome.
 *
 * <ul>
 *   <li>before the commit of writes began (a statement failed, a read-only commit failed, the workload refused):
 *       nothing was committed: {@code fail};</li>
 *   <li>from that commit, SQL error 523 (SQLState 42900, a write-write conflict or another abort decided before
 *       the commit point): {@code fail};</li>
 *   <li>anything else from that commit: {@code info}. phoenix-txn's 1077 "outcome ... unknown" (the commit point
 *       may have been written) is the main case; other 1077s (the TM did not answer before the commit point) did
 *       not commit, but telling them apart would mean parsing messages, and calling a failure unknown only weakens
 *       the check, never invents an anomaly. Runtime exceptions and lost connections are unknown too.</li>
 * </ul>
 */
public final class Outcomes {
    /** Phoenix's TRANSACTION_CONFLICT_EXCEPTION: every abort phoenix-txn decides reaches JDBC as this code. */
    public static final int CONFLICT = 523;
    private static final String CONFLICT_STATE = "42900";

    private Outcomes() {
    }

    public static OpType classify(Throwable error, boolean writeCommitStarted) {
        if (!writeCommitStarted) {
            return OpType.FAIL;
        }
        if (error instanceof SQLException sql
                && (sql.getErrorCode() == CONFLICT || CONFLICT_STATE.equals(sql.getSQLState()))) {
            return OpType.FAIL;
        }
        return OpType.INFO;
    }

    /** Whether {@code error} is an abort phoenix-txn decided (SQL 523 / 42900): the system is up, retry at once. */
    public static boolean isConflict(Throwable error) {
        return error instanceof SQLException sql
                && (sql.getErrorCode() == CONFLICT || CONFLICT_STATE.equals(sql.getSQLState()));
    }

    /** One line for the history: code, state and message. */
    public static String describe(Throwable error) {
        if (error instanceof SQLException sql) {
            return "SQL " + sql.getErrorCode() + " (" + sql.getSQLState() + "): " + sql.getMessage();
        }
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }
}
