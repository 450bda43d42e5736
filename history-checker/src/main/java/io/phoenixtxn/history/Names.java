package io.phoenixtxn.history;

/**
 * Operation functions ({@code Op.f()}) and micro-op functions ({@code Mop.f()}) shared by the workloads that record
 * histories and the checkers that read them.
 */
public final class Names {
    /** A read-write transaction of micro-ops (list-append). */
    public static final String TXN = "txn";
    /** A read-only transaction: several keys or all accounts in one snapshot. */
    public static final String READ = "read";
    /** The read after every client stopped: what the database holds at the end. */
    public static final String FINAL_READ = "final-read";
    /** The initial state a workload wrote before its clients started (bank: {@code [w account balance]}). */
    public static final String SETUP = "setup";
    /** A bank transfer: {@code [transfer id [from to amount]]}. */
    public static final String TRANSFER = "transfer";

    /** Micro-op: write a number (bank setup). */
    public static final String WRITE = "w";
    /** Micro-op: the ledger's transfer ids, {@code [ledger 0 [ids]]}. */
    public static final String LEDGER = "ledger";

    private Names() {
    }
}
