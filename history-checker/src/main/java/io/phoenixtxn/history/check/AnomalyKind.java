package io.phoenixtxn.history.check;

/**
 * What a checker can find. Adya's phenomena (G0 .. G-single) follow "Weak Consistency" (Adya, 1999) and Elle
 * (Kingsbury and Alvaro, VLDB'20); G-nonadjacent is the cycle snapshot isolation forbids beyond G-single
 * (Cerone and Gotsman: an SI history has no dependency cycle without two adjacent anti-dependency edges).
 * G2-item is write skew: allowed under snapshot isolation, reported as such, never a failure.
 */
public enum AnomalyKind {
    G0(true, "write cycle: transactions overwrite each other in a cycle (ww edges only)"),
    G1A(true, "aborted read: a transaction that failed was observed"),
    G1B(true, "intermediate read: a version its writer overwrote in the same transaction was observed"),
    G1C(true, "circular information flow: a cycle of ww and wr edges"),
    G_SINGLE(true, "read skew: a cycle with exactly one rw (anti-dependency) edge"),
    G_NONADJACENT(true, "a cycle whose rw edges are never adjacent (e.g. long fork): forbidden by snapshot isolation"),
    G2_ITEM(false, "write skew: a cycle with two adjacent rw edges, allowed under snapshot isolation"),
    LOST_UPDATE(true, "two committed read-modify-writes of a key read the same version"),
    FRACTURED_READ(true, "a transaction observed one write of a committed transaction but missed another"),
    STALE_READ(true, "a read that began after a write was acknowledged missed it"),
    LOST_WRITE(true, "an acknowledged write is missing from the final read"),
    INCOMPATIBLE_ORDER(true, "two reads of a key are not prefixes of one version order"),
    DUPLICATE_ELEMENTS(true, "a read returned an element twice"),
    GARBAGE_READ(true, "a read returned a value nobody wrote"),
    INTERNAL(true, "a transaction did not read its own earlier reads and writes"),
    WRONG_TOTAL(true, "a bank read's total differs from the initial total (not one snapshot, or money lost)"),
    NEGATIVE_BALANCE(true, "a bank read saw a negative balance"),
    LEDGER_MISMATCH(true, "final balances are not the initial ones plus the ledger's transfers");

    private final boolean prohibited;
    private final String description;

    AnomalyKind(boolean prohibited, String description) {
        this.prohibited = prohibited;
        this.description = description;
    }

    /** False for what snapshot isolation allows (write skew): found and shown, but the history stays valid. */
    public boolean prohibited() {
        return prohibited;
    }

    public String description() {
        return description;
    }
}
