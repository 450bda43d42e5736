package io.phoenixtxn.client;

import io.phoenixtxn.tm.TxnSettings;

import java.util.function.Function;

/**
 * Client and region-server settings of the data plane, read from hbase-site.xml-style keys declared (with defaults
 * and bounds) in {@link TxnSettings}.
 */
public final class TxnClientConfig {
    public static final String COMMIT_TABLE = TxnSettings.COMMIT_TABLE.key();
    /** Apache Omid's key for the same table; honoured so an Omid-configured cluster keeps its table. */
    public static final String OMID_COMMIT_TABLE = "omid.committable.tablename";
    public static final String COMMIT_TABLE_REGIONS = TxnSettings.COMMIT_TABLE_REGIONS.key();
    public static final String POST_COMMIT_MODE = TxnSettings.POST_COMMIT_MODE.key();
    public static final String PENDING_WAIT_MS = TxnSettings.READER_PENDING_WAIT_MS.key();
    public static final String CLEANER_INTERVAL_MS = TxnSettings.CLEANER_INTERVAL_MS.key();
    public static final String KEEP_ALIVE_INTERVAL_MS = TxnSettings.KEEP_ALIVE_INTERVAL_MS.key();
    public static final String COMMIT_POINT_TIMEOUT_MS = TxnSettings.COMMIT_POINT_TIMEOUT_MS.key();
    /** The TM's key, read by clients too: a transaction not renewed within it is expired on both sides. */
    public static final String TRANSACTION_LEASE_MS = TxnSettings.TRANSACTION_LEASE_MS.key();

    /** How commit cells get written after the commit point. */
    public enum PostCommitMode { ASYNC, SYNC }

    /** Defaults, declared with their keys in {@link TxnSettings}. */
    public static final long DEFAULT_PENDING_WAIT_MS = TxnSettings.READER_PENDING_WAIT_MS.defaultValue();
    public static final long DEFAULT_CLEANER_INTERVAL_MS = TxnSettings.CLEANER_INTERVAL_MS.defaultValue();
    public static final long DEFAULT_KEEP_ALIVE_INTERVAL_MS = TxnSettings.KEEP_ALIVE_INTERVAL_MS.defaultValue();
    public static final long DEFAULT_COMMIT_POINT_TIMEOUT_MS = TxnSettings.COMMIT_POINT_TIMEOUT_MS.defaultValue();
    public static final long DEFAULT_TRANSACTION_LEASE_MS = TxnSettings.TRANSACTION_LEASE_MS.defaultValue();

    /** Every setting, validated where it is read ({@link #from}). */
    private record Values(String commitTable, int commitTableRegions, PostCommitMode postCommitMode, long pendingWaitMs,
                          long cleanerIntervalMs, long keepAliveIntervalMs, long commitPointTimeoutMs,
                          long transactionLeaseMs, long finishedFlushMs) {
    }

    private final Values v;

    private TxnClientConfig(Values values) {
        this.v = values;
    }

    public static TxnClientConfig defaults() {
        return from(key -> null);
    }

    public static TxnClientConfig from(Function<String, String> lookup) {
        String table = commitTableOf(lookup);
        PostCommitMode postCommit = PostCommitMode.valueOf(
                TxnSettings.POST_COMMIT_MODE.get(lookup).toUpperCase(java.util.Locale.ROOT));
        return new TxnClientConfig(new Values(table, TxnSettings.COMMIT_TABLE_REGIONS.get(lookup).intValue(),
                postCommit,
                TxnSettings.READER_PENDING_WAIT_MS.get(lookup),
                TxnSettings.CLEANER_INTERVAL_MS.get(lookup),
                TxnSettings.KEEP_ALIVE_INTERVAL_MS.get(lookup),
                TxnSettings.COMMIT_POINT_TIMEOUT_MS.get(lookup),
                TxnSettings.TRANSACTION_LEASE_MS.get(lookup),
                TxnSettings.FINISHED_FLUSH_MS.get(lookup)));
    }

    /**
     * The commit table alone, as {@link #from} reads it: for callers that need only this on a hot path (a table
     * wrapper made for every Phoenix statement), without validating every other key each time.
     */
    public static String commitTableOf(Function<String, String> lookup) {
        return firstNonBlank(lookup.apply(COMMIT_TABLE), lookup.apply(OMID_COMMIT_TABLE), HBaseCommitTable.DEFAULT_NAME);
    }

    public TxnClientConfig withPostCommitMode(PostCommitMode mode) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), mode, v.pendingWaitMs(),
                v.cleanerIntervalMs(), v.keepAliveIntervalMs(), v.commitPointTimeoutMs(),
                v.transactionLeaseMs(), v.finishedFlushMs()));
    }

    public TxnClientConfig withPendingWaitMs(long waitMs) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), v.postCommitMode(), waitMs,
                v.cleanerIntervalMs(), v.keepAliveIntervalMs(), v.commitPointTimeoutMs(),
                v.transactionLeaseMs(), v.finishedFlushMs()));
    }

    public TxnClientConfig withCleanerIntervalMs(long intervalMs) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), v.postCommitMode(),
                v.pendingWaitMs(), intervalMs, v.keepAliveIntervalMs(), v.commitPointTimeoutMs(),
                v.transactionLeaseMs(), v.finishedFlushMs()));
    }

    public TxnClientConfig withKeepAliveIntervalMs(long intervalMs) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), v.postCommitMode(),
                v.pendingWaitMs(), v.cleanerIntervalMs(), intervalMs, v.commitPointTimeoutMs(), v.transactionLeaseMs(), v.finishedFlushMs()));
    }

    public TxnClientConfig withCommitPointTimeoutMs(long timeoutMs) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), v.postCommitMode(),
                v.pendingWaitMs(), v.cleanerIntervalMs(), v.keepAliveIntervalMs(), timeoutMs,
                v.transactionLeaseMs(), v.finishedFlushMs()));
    }

    public TxnClientConfig withTransactionLeaseMs(long leaseMs) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), v.postCommitMode(),
                v.pendingWaitMs(), v.cleanerIntervalMs(), v.keepAliveIntervalMs(), v.commitPointTimeoutMs(), leaseMs, v.finishedFlushMs()));
    }

    public TxnClientConfig withFinishedFlushMs(long flushMs) {
        return new TxnClientConfig(new Values(v.commitTable(), v.commitTableRegions(), v.postCommitMode(),
                v.pendingWaitMs(), v.cleanerIntervalMs(), v.keepAliveIntervalMs(), v.commitPointTimeoutMs(),
                v.transactionLeaseMs(), flushMs));
    }

    /**
     * How often ended transactions are told to the TM in one batch: until then they hold the GC horizon, so this
     * bounds how much recent history a compaction keeps beyond what live readers need (update rate x interval).
     */
    public long finishedFlushMs() {
        return v.finishedFlushMs();
    }

    public String commitTable() {
        return v.commitTable();
    }

    /** The TM's transaction lease, as this client must assume it (see {@link #TRANSACTION_LEASE_MS}). */
    public long transactionLeaseMs() {
        return v.transactionLeaseMs();
    }

    public int commitTableRegions() {
        return v.commitTableRegions();
    }

    public PostCommitMode postCommitMode() {
        return v.postCommitMode();
    }

    /** How long a reader waits for a pending writer to finish before it force-aborts it (VLDB'18 sec. 3.2). */
    public long pendingWaitMs() {
        return v.pendingWaitMs();
    }

    /**
     * How often a client runs the {@link CommitTableCleaner} over entries older than the same period (0 = never).
     */
    public long cleanerIntervalMs() {
        return v.cleanerIntervalMs();
    }

    /** How often open transactions older than this are renewed with the TM (the GC horizon's client lease). */
    public long keepAliveIntervalMs() {
        return v.keepAliveIntervalMs();
    }

    /**
     * The commit point must be written within this after the TM's decision arrives: past it the client does not
     * start the write (the transaction aborts), and the commit-table write itself times out after it. The TM's
     * phoenix.txn.tm.commit.point.horizon.lag.ms must exceed this plus the TM request timeout.
     */
    public long commitPointTimeoutMs() {
        return v.commitPointTimeoutMs();
    }

    private static String firstNonBlank(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return null;
    }
}
