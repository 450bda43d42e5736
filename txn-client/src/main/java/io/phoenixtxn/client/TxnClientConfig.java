package io.phoenixtxn.client;

import io.phoenixtxn.tm.ConfigValues;

import java.util.function.Function;

/** Client and region-server settings of the data plane, read from hbase-site.xml-style keys. */
public final class TxnClientConfig {
    public static final String COMMIT_TABLE = "phoenix.txn.commit.table";
    /** Apache Omid's key for the same table; honoured so an Omid-configured cluster keeps its table. */
    public static final String OMID_COMMIT_TABLE = "omid.committable.tablename";
    public static final String COMMIT_TABLE_REGIONS = "phoenix.txn.commit.table.regions";
    public static final String POST_COMMIT_MODE = "phoenix.txn.postcommit.mode";
    public static final String PENDING_WAIT_MS = "phoenix.txn.reader.pending.wait.ms";
    public static final String CLEANER_INTERVAL_MS = "phoenix.txn.cleaner.interval.ms";

    /** How commit cells get written after the commit point. */
    public enum PostCommitMode { ASYNC, SYNC }

    private final String commitTable;
    private final int commitTableRegions;
    private final PostCommitMode postCommitMode;
    private final long pendingWaitMs;
    private final long cleanerIntervalMs;

    private TxnClientConfig(String commitTable, int commitTableRegions, PostCommitMode postCommitMode,
                            long pendingWaitMs, long cleanerIntervalMs) {
        this.commitTable = commitTable;
        this.commitTableRegions = commitTableRegions;
        this.postCommitMode = postCommitMode;
        this.pendingWaitMs = pendingWaitMs;
        this.cleanerIntervalMs = cleanerIntervalMs;
    }

    public static TxnClientConfig defaults() {
        return from(key -> null);
    }

    public static TxnClientConfig from(Function<String, String> lookup) {
        String table = firstNonBlank(lookup.apply(COMMIT_TABLE), lookup.apply(OMID_COMMIT_TABLE),
                HBaseCommitTable.DEFAULT_NAME);
        String mode = firstNonBlank(lookup.apply(POST_COMMIT_MODE), "async", "async");
        PostCommitMode postCommit;
        try {
            postCommit = PostCommitMode.valueOf(mode.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(POST_COMMIT_MODE + "='" + mode + "' is not one of async, sync", e);
        }
        return new TxnClientConfig(table, (int) nonNegative(lookup, COMMIT_TABLE_REGIONS, 1), postCommit,
                nonNegative(lookup, PENDING_WAIT_MS, 50), nonNegative(lookup, CLEANER_INTERVAL_MS, 60_000));
    }

    public TxnClientConfig withPostCommitMode(PostCommitMode mode) {
        return new TxnClientConfig(commitTable, commitTableRegions, mode, pendingWaitMs, cleanerIntervalMs);
    }

    public TxnClientConfig withPendingWaitMs(long waitMs) {
        return new TxnClientConfig(commitTable, commitTableRegions, postCommitMode, waitMs, cleanerIntervalMs);
    }

    public String commitTable() {
        return commitTable;
    }

    public int commitTableRegions() {
        return commitTableRegions;
    }

    public PostCommitMode postCommitMode() {
        return postCommitMode;
    }

    /** How long a reader waits for a pending writer to finish before it force-aborts it (VLDB'18 sec. 3.2). */
    public long pendingWaitMs() {
        return pendingWaitMs;
    }

    public TxnClientConfig withCleanerIntervalMs(long intervalMs) {
        return new TxnClientConfig(commitTable, commitTableRegions, postCommitMode, pendingWaitMs, intervalMs);
    }

    /**
     * How often a client runs the {@link CommitTableCleaner} over entries older than the same period (0 = never).
     */
    public long cleanerIntervalMs() {
        return cleanerIntervalMs;
    }

    private static long nonNegative(Function<String, String> lookup, String key, long dflt) {
        return ConfigValues.number(lookup, key, dflt, 0, Long.MAX_VALUE);
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
