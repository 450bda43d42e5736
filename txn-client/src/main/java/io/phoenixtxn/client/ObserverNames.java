package io.phoenixtxn.client;

import java.util.Set;

/**
 * Region observers that filter reads by snapshot. A transactional read on a table without one of them would see
 * raw, uncommitted data, so the client refuses it. And the compaction-time GC observers: a table that carries one
 * has its stores garbage-collected by it, otherwise by the read observer itself (tables created before GC existed).
 * (Names, not classes: the client does not link server code.)
 */
public final class ObserverNames {
    public static final String SNAPSHOT_READ_OBSERVER = "io.phoenixtxn.coprocessor.SnapshotReadObserver";
    public static final String PHOENIX_OBSERVER = "io.phoenixtxn.phoenix.PhoenixTxnObserver";
    public static final Set<String> ALL = Set.of(SNAPSHOT_READ_OBSERVER, PHOENIX_OBSERVER);
    public static final String GC_OBSERVER = "io.phoenixtxn.coprocessor.TransactionalGcObserver";
    public static final String PHOENIX_GC_OBSERVER = "io.phoenixtxn.phoenix.PhoenixTxnGcObserver";
    public static final Set<String> GC = Set.of(GC_OBSERVER, PHOENIX_GC_OBSERVER);

    private ObserverNames() {
    }
}
