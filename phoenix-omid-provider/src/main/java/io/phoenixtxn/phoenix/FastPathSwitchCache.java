package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathSwitch;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What this client believes of each table's fast-path switch ({@link FastPathSwitch}, a table descriptor attribute),
 * so that routing a statement costs no master round trip. A belief is only a routing hint, never a safety argument:
 * a stale "enabled" makes the region server refuse the write (FENCED, then {@link #refused}); a stale "disabled"
 * only sends a statement down the regular path. Beliefs are re-read after {@code phoenix.txn.fastpath.switch.cache.ms}.
 */
final class FastPathSwitchCache {
    static final String TTL_KEY = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_CACHE_MS.key();
    static final long DEFAULT_TTL_MS = 5_000;

    private record Belief(boolean enabled, long readAtMs) {
    }

    private final Connection hbase;
    private final long ttlMs;
    private final LongSupplier clockMs;
    private final Map<TableName, Belief> beliefs = new ConcurrentHashMap<>();

    FastPathSwitchCache(Connection hbase, long ttlMs, LongSupplier clockMs) {
        this.hbase = hbase;
        this.ttlMs = ttlMs;
        this.clockMs = clockMs;
    }

    /** True if the table is believed to serve the fast path (the descriptor is read when the belief is too old). */
    boolean isEnabled(TableName table) throws IOException {
        Belief b = beliefs.get(table);
        long now = clockMs.getAsLong();
        if (b == null || now - b.readAtMs() >= ttlMs) {
            b = new Belief(readNow(table), now);
            beliefs.put(table, b);
        }
        return b.enabled();
    }

    /** The switch as the master has it now (no cache): used where soundness depends on it. */
    boolean readNow(TableName table) throws IOException {
        try (Admin admin = hbase.getAdmin()) {
            return FastPathSwitch.isEnabled(admin.getDescriptor(table));
        }
    }

    /** A region server refused a fast-path write to the table (FENCED), or this JVM disabled it: believe it. */
    void refused(TableName table) {
        beliefs.put(table, new Belief(false, clockMs.getAsLong()));
    }
}
