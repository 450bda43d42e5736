package io.phoenixtxn.index;

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
    @Test
    void countsFromParallelWritersAreExactAndExposedOverJmxUntilFinished() throws Exception {
        IndexBuildProgress progress = IndexBuildProgress.forFence(4242);
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
        ObjectName name = new ObjectName("io.phoenixtxn:type=IndexBuild,name=" + ObjectName.quote("IDX")
                + ",fence=4242");
        assertEquals(4000L, ManagementFactory.getPlatformMBeanServer().getAttribute(name, "RowsWritten"));
        assertTrue(IndexBuildProgress.running().containsKey(4242L));
        progress.finish(true);
        assertTrue(progress.isFinished());
        assertFalse(IndexBuildProgress.running().containsKey(4242L));
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(name));
    }
}
