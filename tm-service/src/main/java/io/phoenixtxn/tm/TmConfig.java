package io.phoenixtxn.tm;

import java.util.function.Function;

/**
 * TM settings, read from hbase-site.xml-style keys (any key lookup works: a Hadoop Configuration, Properties).
 * Every key is listed in the README's configuration table.
 */
public final class TmConfig {
    public static final String CONFLICT_ENTRIES = "phoenix.txn.tm.conflict.entries";
    public static final String CONFLICT_ASSOCIATIVITY = "phoenix.txn.tm.conflict.associativity";
    public static final String TIMESTAMP_RESERVATION_MS = "phoenix.txn.tm.timestamp.reservation.ms";
    public static final String MAX_WRITE_SET = "phoenix.txn.tm.max.writeset.size";
    public static final String DECISIONS_RETAINED = "phoenix.txn.tm.decisions.retained";
    public static final String TRANSACTION_LEASE_MS = "phoenix.txn.tm.transaction.lease.ms";
    public static final String COMMIT_POINT_HORIZON_LAG_MS = "phoenix.txn.tm.commit.point.horizon.lag.ms";

    public static final int DEFAULT_CONFLICT_ENTRIES = 1 << 22;
    public static final int DEFAULT_CONFLICT_ASSOCIATIVITY = 16;
    public static final long DEFAULT_TIMESTAMP_RESERVATION_MS = 10_000;
    public static final long MAX_TIMESTAMP_RESERVATION_MS = 86_400_000L;
    public static final int DEFAULT_MAX_WRITE_SET = 1 << 20;
    public static final int DEFAULT_DECISIONS_RETAINED = 1 << 18;
    public static final long DEFAULT_TRANSACTION_LEASE_MS = 60_000;
    public static final long DEFAULT_COMMIT_POINT_HORIZON_LAG_MS = 120_000;

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
        int entries = (int) positive(lookup, CONFLICT_ENTRIES, DEFAULT_CONFLICT_ENTRIES);
        int associativity = (int) positive(lookup, CONFLICT_ASSOCIATIVITY, DEFAULT_CONFLICT_ASSOCIATIVITY);
        if (associativity > entries) {
            throw new IllegalArgumentException(CONFLICT_ASSOCIATIVITY + "=" + associativity + " exceeds "
                    + CONFLICT_ENTRIES + "=" + entries + "; use fewer ways or more entries");
        }
        long reservation = positive(lookup, TIMESTAMP_RESERVATION_MS, DEFAULT_TIMESTAMP_RESERVATION_MS);
        if (reservation > MAX_TIMESTAMP_RESERVATION_MS) {
            throw new IllegalArgumentException(TIMESTAMP_RESERVATION_MS + "=" + reservation + " exceeds one day ("
                    + MAX_TIMESTAMP_RESERVATION_MS + " ms); a reservation only needs to outlast a few lease periods");
        }
        return new TmConfig(entries, associativity, reservation,
                (int) positive(lookup, MAX_WRITE_SET, DEFAULT_MAX_WRITE_SET),
                (int) positive(lookup, DECISIONS_RETAINED, DEFAULT_DECISIONS_RETAINED),
                positive(lookup, TRANSACTION_LEASE_MS, DEFAULT_TRANSACTION_LEASE_MS),
                positive(lookup, COMMIT_POINT_HORIZON_LAG_MS, DEFAULT_COMMIT_POINT_HORIZON_LAG_MS));
    }

    static long positive(Function<String, String> lookup, String key, long dflt) {
        return ConfigValues.number(lookup, key, dflt, 1, key.endsWith(".ms") ? Long.MAX_VALUE : Integer.MAX_VALUE);
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

    public TmConfig withTransactionLease(long leaseMs, long commitPointLagMs) {
        return new TmConfig(conflictEntries, conflictAssociativity, timestampReservationMs, maxWriteSet,
                decisionsRetained, leaseMs, commitPointLagMs);
    }
}
