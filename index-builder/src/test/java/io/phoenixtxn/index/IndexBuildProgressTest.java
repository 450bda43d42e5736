package io.phoenixtxn.index;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexBuildProgressTest {
    @AfterEach
    void restoreHooks() {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
    }

    @Test
    void clientCountsFromParallelWritersAreExactAndExposedOverJmxFromTheFenceUntilFinished() throws Exception {
        IndexBuildProgress progress = IndexBuildProgress.forFence(4242, "T");
        ObjectName name = new ObjectName("io.phoenixtxn:type=IndexBuild,table=" + ObjectName.quote("T")
                + ",fence=4242");
        assertTrue(ManagementFactory.getPlatformMBeanServer().isRegistered(name), "registered before any row");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            pool.execute(() -> {
                for (int i = 0; i < 1000; i++) {
                    progress.scanned(1);
                    progress.written("IDX", 1);
                }
            });
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(4000, progress.getRowsScanned());
        assertEquals(4000, progress.getRowsWritten());
        assertEquals(4000L, ManagementFactory.getPlatformMBeanServer().getAttribute(name, "RowsWritten"));
        assertEquals("IDX", progress.getIndexTable());
        assertTrue(IndexBuildProgress.running().containsKey(4242L));
        progress.finish(true);
        assertTrue(progress.isFinished());
        assertFalse(IndexBuildProgress.running().containsKey(4242L));
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(name));
    }
}
