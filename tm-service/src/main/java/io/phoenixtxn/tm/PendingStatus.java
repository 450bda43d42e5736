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
    /** The kinds of answer, each with its code in the TM protocol's STATUS message (fixed, unlike the order). */
    public enum Kind {
        NOT_DECIDED(1), DECIDED(2), UNKNOWN(3);

        private final int wireCode;

        Kind(int wireCode) {
            this.wireCode = wireCode;
        }

        public int wireCode() {
            return wireCode;
        }

        /** The kind with this code, or null if this version of the protocol has none. */
        public static Kind ofWireCode(int code) {
            for (Kind kind : values()) {
                if (kind.wireCode == code) {
                    return kind;
                }
            }
            return null;
        }
    }

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
