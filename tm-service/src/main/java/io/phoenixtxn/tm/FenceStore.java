package io.phoenixtxn.tm;

import java.util.Map;

/**
 * Durable home of fences. Apache Omid keeps fences only in TSO memory; we persist each one before it is returned,
 * so a new primary loads them and a fence is never lost in a failover.
 */
public interface FenceStore {
    /** Records that {@code tableId} is fenced at {@code fenceTs} (keep the maximum). */
    void persist(long tableId, long fenceTs) throws TmException;

    /** Every fence recorded so far, table id to fence timestamp. */
    Map<Long, Long> loadAll() throws TmException;

    /** Fences of a single process (tests, embedded TM without HA). */
    static FenceStore inMemory() {
        return new InMemoryFenceStore();
    }
}
