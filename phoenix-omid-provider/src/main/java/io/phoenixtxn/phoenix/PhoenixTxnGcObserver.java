package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.coprocessor.TransactionalGcObserver;

/**
 * The compaction-time GC observer Phoenix installs on transactional tables and indexes
 * ({@code getGCCoprocessorClassName()}), next to {@link PhoenixTxnObserver}; a name of its own, because Phoenix adds
 * both and a table cannot carry one class twice. Tables created before it existed carry only the read observer,
 * which then collects their stores itself.
 */
public class PhoenixTxnGcObserver extends TransactionalGcObserver {
    static String className() {
        return ObserverNames.PHOENIX_GC_OBSERVER;
    }
}
