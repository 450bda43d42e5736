package io.phoenixtxn.tm;

/** The TM's answer to a commit request: a commit timestamp, or an abort reason. */
public final class CommitDecision {
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
        return new CommitDecision(-1, reason);
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
