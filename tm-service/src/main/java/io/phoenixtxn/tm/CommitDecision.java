package io.phoenixtxn.tm;

/** The TM's answer to a commit request: a commit timestamp, or an abort reason. */
public final class CommitDecision {
    /** One immutable instance per reason: an abort allocates nothing. */
    private static final CommitDecision[] ABORTED = new CommitDecision[AbortReason.values().length];

    static {
        for (AbortReason reason : AbortReason.values()) {
            ABORTED[reason.ordinal()] = new CommitDecision(-1, reason);
        }
    }

    private final long commitTimestamp;
    private final AbortReason abortReason;

    private CommitDecision(long commitTimestamp, AbortReason abortReason) {
        this.commitTimestamp = commitTimestamp;
        this.abortReason = abortReason;
    }

    public static CommitDecision committed(long commitTimestamp) {
        return new CommitDecision(commitTimestamp, null);
    }

    public static CommitDecision aborted(AbortReason reason) {
        return ABORTED[reason.ordinal()];
    }

    /**
     * The decision a TM encodes as one long on its allocation-free paths: a commit timestamp (positive), or
     * {@link #abortOutcome} of the reason (negative).
     */
    public static CommitDecision of(long outcome) {
        return outcome > 0 ? committed(outcome) : aborted(reasonOf(outcome));
    }

    /** The abort reason as an outcome long: minus its wire code; only TM reasons have one. */
    public static long abortOutcome(AbortReason reason) {
        int code = reason.wireCode();
        if (code == AbortReason.NOT_A_TM_ANSWER) {
            throw new IllegalArgumentException(reason + " is not a TM decision");
        }
        return -code;
    }

    /** The abort reason of a negative outcome. */
    public static AbortReason reasonOf(long outcome) {
        AbortReason reason = outcome < 0 && outcome >= Integer.MIN_VALUE ? AbortReason.ofWireCode((int) -outcome)
                : null;
        if (reason == null) {
            throw new IllegalArgumentException("outcome " + outcome + " is not an abort");
        }
        return reason;
    }

    public boolean isCommitted() {
        return abortReason == null;
    }

    public long commitTimestamp() {
        if (abortReason != null) {
            throw new IllegalStateException("Aborted: " + abortReason);
        }
        return commitTimestamp;
    }

    public AbortReason abortReason() {
        return abortReason;
    }

    @Override
    public String toString() {
        return isCommitted() ? "committed@" + commitTimestamp : "aborted(" + abortReason + ")";
    }
}
