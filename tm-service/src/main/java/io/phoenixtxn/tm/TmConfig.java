package io.phoenixtxn.tm;

import java.util.function.Function;

/**
 * TM settings, read from hbase-site.xml-style keys (any key lookup works: a Hadoop Configuration, Properties).
 * Keys, defaults and bounds are declared in {@link TxnSettings}, which the README's configuration table is made from.
 */
public final class TmConfig {
    public static final String CONFLICT_ENTRIES = TxnSettings.TM_CONFLICT_ENTRIES.key();
    public static final String CONFLICT_ASSOCIATIVITY = TxnSettings.TM_CONFLICT_ASSOCIATIVITY.key();
    public static final String TIMESTAMP_RESERVATION_MS = TxnSettings.TM_TIMESTAMP_RESERVATION_MS.key();
    public static final String MAX_WRITE_SET = TxnSettings.TM_MAX_WRITE_SET.key();
    public static final String DECISIONS_RETAINED = TxnSettings.TM_DECISIONS_RETAINED.key();
    public static final String TRANSACTION_LEASE_MS = TxnSettings.TRANSACTION_LEASE_MS.key();
    public static final String COMMIT_POINT_HORIZON_LAG_MS = TxnSettings.COMMIT_POINT_HORIZON_LAG_MS.key();

    public static final int DEFAULT_CONFLICT_ENTRIES = TxnSettings.TM_CONFLICT_ENTRIES.defaultValue().intValue();
    public static final int DEFAULT_CONFLICT_ASSOCIATIVITY =
            TxnSettings.TM_CONFLICT_ASSOCIATIVITY.defaultValue().intValue();
    public static final long DEFAULT_TIMESTAMP_RESERVATION_MS =
            TxnSettings.TM_TIMESTAMP_RESERVATION_MS.defaultValue();
    /** A reservation only needs to outlast a few lease periods; far larger ones would overflow the oracle. */
    public static final long MAX_TIMESTAMP_RESERVATION_MS = TxnSettings.TM_TIMESTAMP_RESERVATION_MS.max();
    public static final int DEFAULT_MAX_WRITE_SET = TxnSettings.TM_MAX_WRITE_SET.defaultValue().intValue();
    public static final int DEFAULT_DECISIONS_RETAINED = TxnSettings.TM_DECISIONS_RETAINED.defaultValue().intValue();
    public static final long DEFAULT_TRANSACTION_LEASE_MS = TxnSettings.TRANSACTION_LEASE_MS.defaultValue();
    public static final long DEFAULT_COMMIT_POINT_HORIZON_LAG_MS =
            TxnSettings.COMMIT_POINT_HORIZON_LAG_MS.defaultValue();

    private final int conflictEntries;
    private final int conflictAssociativity;
    private final long timestampReservationMs;
    private final int maxWriteSet;
    private final int decisionsRetained;
    private final long transactionLeaseMs;
    private final long commitPointHorizonLagMs;

    private TmConfig(int conflictEntries, int conflictAssociativity, long timestampReservationMs, int maxWriteSet,
                     int decisionsRetained, long transactionLeaseMs, long commitPointHorizonLagMs) {
        this.conflictEntries = conflictEntries;
        this.conflictAssociativity = conflictAssociativity;
        this.timestampReservationMs = timestampReservationMs;
        this.maxWriteSet = maxWriteSet;
        this.decisionsRetained = decisionsRetained;
        this.transactionLeaseMs = transactionLeaseMs;
        this.commitPointHorizonLagMs = commitPointHorizonLagMs;
    }

    public static TmConfig defaults() {
        return from(key -> null);
    }

    /** Reads every key through {@code lookup} (null = default); bad values fail with the key's name. */
    public static TmConfig from(Function<String, String> lookup) {
        int entries = TxnSettings.TM_CONFLICT_ENTRIES.get(lookup).intValue();
        int associativity = TxnSettings.TM_CONFLICT_ASSOCIATIVITY.get(lookup).intValue();
        if (associativity > entries) {
            throw new IllegalArgumentException(CONFLICT_ASSOCIATIVITY + "=" + associativity + " exceeds "
                    + CONFLICT_ENTRIES + "=" + entries + "; use fewer ways or more entries");
        }
        return new TmConfig(entries, associativity, TxnSettings.TM_TIMESTAMP_RESERVATION_MS.get(lookup),
                TxnSettings.TM_MAX_WRITE_SET.get(lookup).intValue(),
                TxnSettings.TM_DECISIONS_RETAINED.get(lookup).intValue(),
                TxnSettings.TRANSACTION_LEASE_MS.get(lookup),
                TxnSettings.COMMIT_POINT_HORIZON_LAG_MS.get(lookup));
    }

    public int conflictEntries() {
        return conflictEntries;
    }

    public int conflictAssociativity() {
        return conflictAssociativity;
    }

    public long timestampReservationMs() {
        return timestampReservationMs;
    }

    public int maxWriteSet() {
        return maxWriteSet;
    }

    /** Recent commit decisions the TM remembers for readers ({@link PendingStatus}). */
    public int decisionsRetained() {
        return decisionsRetained;
    }

    /**
     * How long a transaction holds the GC horizon without a word from its client (begin, keep-alive); past it the
     * transaction is expired: it can no longer commit, and its reads may find their versions collected.
     */
    public long transactionLeaseMs() {
        return transactionLeaseMs;
    }

    /**
     * How long after the GC horizon passed a transaction that transaction can no longer write a commit point (its
     * invalid marker may go): must exceed the clients' phoenix.txn.commit.point.timeout.ms plus their TM request
     * timeout.
     */
    public long commitPointHorizonLagMs() {
        return commitPointHorizonLagMs;
    }

    public TmConfig withConflictEntries(int entries) {
        return new TmConfig(entries, Math.min(conflictAssociativity, entries), timestampReservationMs, maxWriteSet,
                decisionsRetained, transactionLeaseMs, commitPointHorizonLagMs);
    }

    public TmConfig withDecisionsRetained(int decisions) {
        return new TmConfig(conflictEntries, conflictAssociativity, timestampReservationMs, maxWriteSet,
                decisions, transactionLeaseMs, commitPointHorizonLagMs);
    }

    public TmConfig withTransactionLease(long leaseMs, long commitPointLagMs) {
        return new TmConfig(conflictEntries, conflictAssociativity, timestampReservationMs, maxWriteSet,
                decisionsRetained, leaseMs, commitPointLagMs);
    }
}
