package io.phoenixtxn.tm;

/** Why a transaction aborted. Each reason carries the wording that reaches the JDBC error message. */
public enum AbortReason {
    CONFLICT("a concurrent transaction committed a write to the same row after this transaction started;"
            + " retry the transaction"),
    FENCE("an index is being created on a table this transaction writes, the table was made transactional, or a"
            + " bulk load into it runs or committed (the transaction started before that write fence); retry the"
            + " transaction"),
    BELOW_LOW_WATER_MARK("the transaction started before the transaction manager's low-water mark (it ran too"
            + " long, or a TM failover happened); retry the transaction"),
    CONFLICT_HISTORY_FULL("the transaction manager's conflict table had no room to remember this commit without"
            + " forgetting writes newer than the transaction's start; retry, or raise"
            + " phoenix.txn.tm.conflict.entries"),
    LEASE_LOST("the transaction manager lost its primary lease before deciding; retry the transaction"),
    EXPIRED("the transaction outlived its lease (its client stopped renewing it for"
            + " phoenix.txn.tm.transaction.lease.ms, or a TM failover forgot it), so data it read may have been"
            + " garbage-collected: snapshot too old; retry the transaction"),
    INVALIDATED("a reader found this transaction's write still pending and aborted it (Omid LL force-abort);"
            + " retry the transaction"),
    COMMIT_POINT_TOO_LATE("the commit point could not be written within phoenix.txn.commit.point.timeout.ms after"
            + " the transaction manager's decision (a long pause of the client?), so it was not written; retry the"
            + " transaction"),
    CLIENT_ROLLBACK("rolled back by the client");

    private final String explanation;

    AbortReason(String explanation) {
        this.explanation = explanation;
    }

    public String explanation() {
        return explanation;
    }

    /**
     * This reason's code in the TM protocol's ABORTED answer, fixed whatever the order of the constants, or
     * {@link #NOT_A_TM_ANSWER} for outcomes only a client reaches (the TM never sends them). Codes are never reused.
     */
    public int wireCode() {
        switch (this) {
            case CONFLICT:
                return 1;
            case FENCE:
                return 2;
            case BELOW_LOW_WATER_MARK:
                return 3;
            case CONFLICT_HISTORY_FULL:
                return 4;
            case LEASE_LOST:
                return 5;
            case EXPIRED:
                return 6;
            default:
                return NOT_A_TM_ANSWER;
        }
    }

    /** The TM's abort reason with this code, or null if this version of the protocol has none. */
    public static AbortReason ofWireCode(int code) {
        return code > 0 && code < ByCode.REASONS.length ? ByCode.REASONS[code] : null;
    }

    /** Reasons indexed by wire code (a holder: an enum's own static fields initialize after its constants). */
    private static final class ByCode {
        static final AbortReason[] REASONS;

        static {
            int max = 0;
            for (AbortReason reason : values()) {
                max = Math.max(max, reason.wireCode());
            }
            REASONS = new AbortReason[max + 1];
            for (AbortReason reason : values()) {
                if (reason.wireCode() != NOT_A_TM_ANSWER) {
                    REASONS[reason.wireCode()] = reason;
                }
            }
        }
    }

    /** The {@link #wireCode()} of outcomes that never travel from the TM. */
    public static final int NOT_A_TM_ANSWER = 0;

    /** Aborts a retry of the same transaction can get past. */
    public boolean isRetryable() {
        return this != CLIENT_ROLLBACK;
    }
}
