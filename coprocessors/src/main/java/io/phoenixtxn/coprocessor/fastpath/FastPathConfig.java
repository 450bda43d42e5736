package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.tm.TxnSettings;

import java.util.function.Function;

/**
 * Region-server settings of the fast path (hbase-site.xml keys, declared in {@link TxnSettings}).
 *
 * @param bootstrapWaitMs how long the first fast-path write to a region opened on this server waits for the fresh TM
 *                        timestamp its version clock needs; past it the write aborts (SLOT_UNAVAILABLE) and its client
 *                        retries on the regular path
 * @param readWaitMs      how long a transactional read waits for a fast-path write in flight that may belong to its
 *                        snapshot; past it the read fails (and is retried by the client) rather than miss it
 * @param slotMaxAgeMs    how far the millisecond of the version clock's slot may lag the wall clock for a fast-path
 *                        version to be drawn from it (versions expire by TTL by their millisecond); an older slot is
 *                        left for a fresh one, waited for before the row is locked (up to the bootstrap wait)
 */
public record FastPathConfig(long bootstrapWaitMs, long readWaitMs, long slotMaxAgeMs) {
    public static final String BOOTSTRAP_WAIT_MS = TxnSettings.FASTPATH_BOOTSTRAP_WAIT_MS.key();
    public static final String READ_WAIT_MS = TxnSettings.FASTPATH_READ_WAIT_MS.key();
    public static final long DEFAULT_BOOTSTRAP_WAIT_MS = TxnSettings.FASTPATH_BOOTSTRAP_WAIT_MS.defaultValue();
    public static final long DEFAULT_READ_WAIT_MS = TxnSettings.FASTPATH_READ_WAIT_MS.defaultValue();
    public static final String SLOT_MAX_AGE_MS = TxnSettings.FASTPATH_SLOT_MAX_AGE_MS.key();
    public static final long DEFAULT_SLOT_MAX_AGE_MS = TxnSettings.FASTPATH_SLOT_MAX_AGE_MS.defaultValue();

    public static FastPathConfig from(Function<String, String> settings) {
        return new FastPathConfig(
                TxnSettings.FASTPATH_BOOTSTRAP_WAIT_MS.get(settings),
                TxnSettings.FASTPATH_READ_WAIT_MS.get(settings),
                TxnSettings.FASTPATH_SLOT_MAX_AGE_MS.get(settings));
    }
}
