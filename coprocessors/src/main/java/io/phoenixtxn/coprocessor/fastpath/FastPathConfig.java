package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.tm.ConfigValues;

import java.util.function.Function;

/**
 * Region-server settings of the fast path (hbase-site.xml keys).
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
    public static final String BOOTSTRAP_WAIT_MS = "phoenix.txn.fastpath.bootstrap.wait.ms";
    public static final String READ_WAIT_MS = "phoenix.txn.fastpath.read.wait.ms";
    public static final long DEFAULT_BOOTSTRAP_WAIT_MS = 1_000;
    public static final long DEFAULT_READ_WAIT_MS = 30_000;
    public static final String SLOT_MAX_AGE_MS = "phoenix.txn.fastpath.slot.max.age.ms";
    public static final long DEFAULT_SLOT_MAX_AGE_MS = 1_000;

    public static FastPathConfig from(Function<String, String> settings) {
        return new FastPathConfig(
                ConfigValues.number(settings, BOOTSTRAP_WAIT_MS, DEFAULT_BOOTSTRAP_WAIT_MS, 0, 60_000),
                ConfigValues.number(settings, READ_WAIT_MS, DEFAULT_READ_WAIT_MS, 1, 600_000),
                ConfigValues.number(settings, SLOT_MAX_AGE_MS, DEFAULT_SLOT_MAX_AGE_MS, 10, 3_600_000));
    }
}
