package io.phoenixtxn.tm;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link FenceStore} for a single process. */
final class InMemoryFenceStore implements FenceStore {
    private final Map<Long, Long> fences = new ConcurrentHashMap<>();

    @Override
    public void persist(long tableId, long fenceTs) {
        fences.merge(tableId, fenceTs, Math::max);
    }

    @Override
    public Map<Long, Long> loadAll() {
        return new HashMap<>(fences);
    }
}
