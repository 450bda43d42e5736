package io.phoenixtxn.tm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The fences a TM enforces: table id to the newest fence timestamp, backed by a {@link FenceStore}. */
final class FenceRegistry {
    private final FenceStore store;
    private final Map<Long, Long> fences = new ConcurrentHashMap<>();

    FenceRegistry(FenceStore store) {
        this.store = store;
    }

    /** Loads persisted fences (a new primary must enforce every fence an older one handed out). */
    void load() throws TmException {
        fences.clear();
        fences.putAll(store.loadAll());
    }

    void add(long tableId, long fenceTs) throws TmException {
        store.persist(tableId, fenceTs);
        fences.merge(tableId, fenceTs, Math::max);
    }

    /** True if one of the tables has a fence taken after the transaction started. */
    boolean blocks(long txId, long[] tableIds) {
        if (fences.isEmpty()) {
            return false;
        }
        for (long table : tableIds) {
            Long fence = fences.get(table);
            if (fence != null && fence > txId) {
                return true;
            }
        }
        return false;
    }

    int size() {
        return fences.size();
    }
}
