package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.coprocessor.SnapshotReadObserver;

/**
 * The region observer Phoenix installs on transactional tables and indexes ({@code getCoprocessorClassName()}):
 * snapshot reads, plus taking the OMID slot on the region server when the class is first loaded there, so
 * server-side Phoenix code (index builds, decoded transaction state) reaches our provider.
 */
public class PhoenixTxnObserver extends SnapshotReadObserver {
    static {
        ProviderSlot.install();
    }

    static String className() {
        return ObserverNames.PHOENIX_OBSERVER;
    }
}
