package io.phoenixtxn.tm;

/**
 * What the TM can say about a transaction a reader found pending (tentative cells, no commit-table entry):
 * <ul>
 *   <li>{@link Kind#NOT_DECIDED}: the TM has not decided it to commit. Any later commit of it gets a commit
 *       timestamp above every timestamp issued before this answer, so a reader that began earlier can ignore it:
 *       no force-abort is needed (this is what keeps in-flight writers alive under readers).</li>
 *   <li>{@link Kind#DECIDED}: committed at the TM with {@link #commitTs()}, commit point perhaps not yet written.</li>
 *   <li>{@link Kind#UNKNOWN}: the TM no longer (or never) knew: an older epoch, or a decision it forgot. The reader
 *       falls back to the Omid LL rule: wait, then force-abort.</li>
 * </ul>
 */
public final class PendingStatus {
    public enum Kind { NOT_DECIDED, DECIDED, UNKNOWN }

    private static final PendingStatus NOT_DECIDED = new PendingStatus(Kind.NOT_DECIDED, -1);
    private static final PendingStatus UNKNOWN = new PendingStatus(Kind.UNKNOWN, -1);

    private final Kind kind;
    private final long commitTs;

    private PendingStatus(Kind kind, long commitTs) {
        this.kind = kind;
        this.commitTs = commitTs;
    }

    public static PendingStatus notDecided() {
        return NOT_DECIDED;
    }

    public static PendingStatus unknown() {
        return UNKNOWN;
    }

    public static PendingStatus decided(long commitTs) {
        return new PendingStatus(Kind.DECIDED, commitTs);
    }

    public Kind kind() {
        return kind;
    }

    public long commitTs() {
        return commitTs;
    }

    @Override
    public String toString() {
        return kind == Kind.DECIDED ? "decided@" + commitTs : kind.name();
    }
}
