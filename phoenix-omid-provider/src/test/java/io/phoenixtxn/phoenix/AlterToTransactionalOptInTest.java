package io.phoenixtxn.phoenix;

import org.apache.phoenix.transaction.PhoenixTransactionProvider.Feature;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Converting a live table ({@code ALTER TABLE t SET TRANSACTIONAL=true}) is opt-in per JVM: Phoenix asks
 * {@code isUnsupported(ALTER_NONTX_TO_TX)} with no configuration at hand, so the switch is a JVM system property,
 * off by default (Phoenix's own ITs then see the provider refuse the ALTER, as Omid's does).
 */
class AlterToTransactionalOptInTest {
    /** TxnSettings.ALTER_TO_TRANSACTIONAL, spelled out: the test pins the key operators set. */
    private static final String KEY = "phoenix.txn.alter.to.transactional";

    @Test
    void alterToTransactionalIsUnsupportedUnlessTheJvmOptsIn() {
        String before = System.getProperty(KEY);
        PhoenixTxnProvider provider = PhoenixTxnProvider.INSTANCE;
        try {
            System.clearProperty(KEY);
            assertTrue(provider.isUnsupported(Feature.ALTER_NONTX_TO_TX), "off by default");
            System.setProperty(KEY, "true");
            assertFalse(provider.isUnsupported(Feature.ALTER_NONTX_TO_TX), "on with " + KEY + "=true");
            System.setProperty(KEY, "false");
            assertTrue(provider.isUnsupported(Feature.ALTER_NONTX_TO_TX));
        } finally {
            if (before == null) {
                System.clearProperty(KEY);
            } else {
                System.setProperty(KEY, before);
            }
        }
        assertFalse(provider.isUnsupported(Feature.SET_TTL), "the other answers do not depend on it");
        assertTrue(provider.isUnsupported(Feature.COLUMN_ENCODING));
    }
}
