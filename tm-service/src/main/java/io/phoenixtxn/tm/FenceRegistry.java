package io.phoenixtxn.tm;

import java.util.Arrays;
import java.util.Map;

/**
 * The fences a TM enforces: table id to the newest fence timestamp, backed by a {@link FenceStore}. Fences are rare
 * (one per online index build) and every commit checks them, so the lookup side is a copy-on-write pair of sorted
 * primitive arrays published through one volatile field: a commit reads it without a lock, a boxed key or an
 * allocation; a new fence copies the arrays.
 */
final class FenceRegistry {
    private static final Fences NONE = new Fences(new long[0], new long[0]);

    private final FenceStore store;
    private volatile Fences current = NONE;

    FenceRegistry(FenceStore store) {
        this.store = store;
    }

    /** Loads persisted fences (a new primary must enforce every fence an older one handed out). */
    synchronized void load() throws TmException {
        Fences loaded = NONE;
        for (Map.Entry<Long, Long> fence : store.loadAll().entrySet()) {
            loaded = loaded.with(fence.getKey(), fence.getValue());
        }
        current = loaded;
    }

    /** Persists, then enforces; an older fence never lowers the line. */
    synchronized void add(long tableId, long fenceTs) throws TmException {
        store.persist(tableId, fenceTs);
        current = current.with(tableId, fenceTs);
    }

    /** True if one of the tables has a fence taken after the transaction started. */
    boolean blocks(long txId, long[] tableIds) {
        return blocks(txId, tableIds, 0, tableIds.length);
    }

    /** As above, for {@code tableIds[from, to)}. */
    boolean blocks(long txId, long[] tableIds, int from, int to) {
        Fences fences = current;
        if (fences.tables.length == 0) {
            return false;
        }
        for (int i = from; i < to; i++) {
            int at = Arrays.binarySearch(fences.tables, tableIds[i]);
            if (at >= 0 && fences.timestamps[at] > txId) {
                return true;
            }
        }
        return false;
    }

    /** Table id to its newest fence timestamp, sorted by table id (operators' status). */
    java.util.SortedMap<Long, Long> snapshot() {
        Fences fences = current;
        java.util.SortedMap<Long, Long> out = new java.util.TreeMap<>();
        for (int i = 0; i < fences.tables.length; i++) {
            out.put(fences.tables[i], fences.timestamps[i]);
        }
        return out;
    }

    int size() {
        return current.tables.length;
    }

    /** Sorted table ids and their newest fence timestamps; immutable. */
    private static final class Fences {
        final long[] tables;
        final long[] timestamps;

        Fences(long[] tables, long[] timestamps) {
            this.tables = tables;
            this.timestamps = timestamps;
        }

        Fences with(long tableId, long fenceTs) {
            int at = Arrays.binarySearch(tables, tableId);
            if (at >= 0) {
                if (timestamps[at] >= fenceTs) {
                    return this;
                }
                long[] ts = timestamps.clone();
                ts[at] = fenceTs;
                return new Fences(tables, ts);
            }
            int insert = -at - 1;
            long[] t = new long[tables.length + 1];
            long[] ts = new long[tables.length + 1];
            System.arraycopy(tables, 0, t, 0, insert);
            System.arraycopy(timestamps, 0, ts, 0, insert);
            t[insert] = tableId;
            ts[insert] = fenceTs;
            System.arraycopy(tables, insert, t, insert + 1, tables.length - insert);
            System.arraycopy(timestamps, insert, ts, insert + 1, tables.length - insert);
            return new Fences(t, ts);
        }
    }
}
