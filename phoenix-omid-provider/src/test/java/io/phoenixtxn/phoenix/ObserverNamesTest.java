package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.coprocessor.SnapshotReadObserver;
import io.phoenixtxn.coprocessor.TransactionalGcObserver;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The names Phoenix installs are our classes, and the GC observer's differs from the read observer's: Phoenix's
 * addCoprocessors adds both, and a table descriptor refuses one class twice.
 */
class ObserverNamesTest {
    @Test
    void theProviderNamesTwoDistinctObserversOfOurs() {
        PhoenixTxnProvider provider = PhoenixTxnProvider.INSTANCE;
        assertEquals(PhoenixTxnObserver.class.getName(), provider.getCoprocessorClassName());
        assertEquals(PhoenixTxnGcObserver.class.getName(), provider.getGCCoprocessorClassName());
        assertNotEquals(provider.getCoprocessorClassName(), provider.getGCCoprocessorClassName());
    }

    @Test
    void theClientsConstantsNameTheClasses() {
        assertEquals(SnapshotReadObserver.class.getName(), ObserverNames.SNAPSHOT_READ_OBSERVER);
        assertEquals(TransactionalGcObserver.class.getName(), ObserverNames.GC_OBSERVER);
        assertEquals(PhoenixTxnGcObserver.class.getName(), ObserverNames.PHOENIX_GC_OBSERVER);
    }
}
