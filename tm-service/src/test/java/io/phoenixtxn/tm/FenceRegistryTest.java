package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link FenceRegistry} keeps the newest fence per table, persists it in its store and reloads it from there. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FenceRegistryTest {

    @Test
    void fenceRegistryKeepsTheNewestFencePerTableAndLoadsFromTheStore() throws Exception {
        FenceStore store = FenceStore.inMemory();
        FenceRegistry registry = new FenceRegistry(store);
        registry.load();
        assertEquals(0, registry.size());
        assertFalse(registry.blocks(5, new long[] {1, 2}));
        registry.add(1, 100);
        registry.add(1, 50); // an older fence never lowers the line
        assertEquals(Map.of(1L, 100L), store.loadAll());
        assertTrue(registry.blocks(99, new long[] {2, 1}));
        assertFalse(registry.blocks(101, new long[] {1}));
        assertFalse(registry.blocks(99, new long[] {2, 3}));
        assertFalse(registry.blocks(99, new long[0]));

        FenceRegistry reloaded = new FenceRegistry(store);
        reloaded.load();
        assertEquals(1, reloaded.size());
        assertTrue(reloaded.blocks(99, new long[] {1}));
    }
}
