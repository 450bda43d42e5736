package io.phoenixtxn.phoenix;

import org.apache.phoenix.transaction.PhoenixTransactionProvider.Feature;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Converting a live table ({@code ALTER TABLE t SET TRANSACTIONAL=true}) is supported unless the JVM opts out: Phoenix
 * asks {@code isUnsupported(ALTER_NONTX_TO_TX)} with no configuration at hand, so the switch is a JVM system property.
 * Answering "supported" to Phoenix's ALTER code marks the asking thread, whose next DDL timestamp is the ALTER's
 * ({@link AlterSwitches}; AlterToTransactionalIT covers that path end to end).
 */
class AlterToTransactionalSwitchTest {
    /** TxnSettings.ALTER_TO_TRANSACTIONAL, spelled out: the test pins the key operators set. */
    private static final String KEY = "phoenix.txn.alter.to.transactional";

    @Test
    void alterToTransactionalIsSupportedUnlessTheJvmOptsOut() {
        String before = System.getProperty(KEY);
        PhoenixTxnProvider provider = PhoenixTxnProvider.INSTANCE;
        try {
            System.clearProperty(KEY);
            AlterSwitches.takeAsked();
            assertFalse(provider.isUnsupported(Feature.ALTER_NONTX_TO_TX), "on by default");
            assertFalse(AlterSwitches.takeAsked(), "only a question from Phoenix's ALTER code (MetaDataClient) marks"
                    + " the thread for the ALTER's timestamp");
            System.setProperty(KEY, "false");
            assertTrue(provider.isUnsupported(Feature.ALTER_NONTX_TO_TX), "off with " + KEY + "=false");
            assertFalse(AlterSwitches.takeAsked(), "a refused ALTER marks nothing");
            System.setProperty(KEY, "true");
            assertFalse(provider.isUnsupported(Feature.ALTER_NONTX_TO_TX));
        } finally {
            AlterSwitches.takeAsked();
            if (before == null) {
                System.clearProperty(KEY);
            } else {
                System.setProperty(KEY, before);
            }
        }
        assertFalse(provider.isUnsupported(Feature.SET_TTL), "the other answers do not depend on it");
        assertTrue(provider.isUnsupported(Feature.COLUMN_ENCODING));
        assertFalse(AlterSwitches.switchAsked(), "other features mark nothing");
    }

    @Test
    void aConnectionsPendingSwitchIsTakenOnceFromTheEarliestDdlTime() {
        org.apache.phoenix.jdbc.PhoenixConnection connection =
                org.mockito.Mockito.mock(org.apache.phoenix.jdbc.PhoenixConnection.class);
        org.apache.phoenix.jdbc.PhoenixConnection other =
                org.mockito.Mockito.mock(org.apache.phoenix.jdbc.PhoenixConnection.class);
        assertEquals(null, AlterSwitches.takePending(connection));
        AlterSwitches.pending(connection, 2_000);
        AlterSwitches.pending(connection, 1_000); // two ALTERs before the next transaction: the earlier time
        assertEquals(null, AlterSwitches.takePending(other), "only the ALTER's own connection");
        assertEquals(1_000L, AlterSwitches.takePending(connection));
        assertEquals(null, AlterSwitches.takePending(connection), "taken once");
        assertEquals(null, AlterSwitches.takePending(null));
    }
}
