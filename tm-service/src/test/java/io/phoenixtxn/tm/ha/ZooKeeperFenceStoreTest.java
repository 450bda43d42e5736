package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("slow")
class ZooKeeperFenceStoreTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    @Test
    @Timeout(30)
    void keepsTheMaximumPerTableAndIsReadByANewInstance() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        ZooKeeperFenceStore store = new ZooKeeperFenceStore(zk.newClient(), paths);
        assertEquals(Map.of(), store.loadAll(), "no fence node yet: nothing to load");

        store.persist(7, 100);
        store.persist(7, 50);
        store.persist(-3, 10);
        store.persist(-3, 20);
        store.persist(Long.MIN_VALUE, 1);

        Map<Long, Long> loaded = new ZooKeeperFenceStore(zk.newClient(), paths).loadAll();
        assertEquals(Map.of(7L, 100L, -3L, 20L, Long.MIN_VALUE, 1L), loaded);
    }

    @Test
    @Timeout(60)
    void concurrentFencesOfOneTableKeepTheLargest() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        int writers = 6;
        int fencesEach = 25;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                ZooKeeperFenceStore store = new ZooKeeperFenceStore(zk.newClient(), paths);
                int writer = w;
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < fencesEach; i++) {
                        // Interleaved values, so writers constantly try to lower each other's fence.
                        store.persist(42, (long) i * writers + writer);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Map.of(42L, (long) fencesEach * writers - 1),
                new ZooKeeperFenceStore(zk.newClient(), paths).loadAll());
    }

    @Test
    @Timeout(30)
    void aNewPrimaryEnforcesFencesTheOldOneTook() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        TmConfig config = TmConfig.defaults().withConflictEntries(1 << 12);
        CuratorFramework oldClient = zk.newClient();
        TransactionManagerCore old = TransactionManagerCore.start(config, Clock.SYSTEM,
                new ZooKeeperTimestampStorage(oldClient, paths), new ZooKeeperFenceStore(oldClient, paths),
                Lease.ALWAYS_HELD);
        long table = 0x5EED;
        long fence = old.fence(table);
        old.close();

        CuratorFramework newClient = zk.newClient();
        TransactionManagerCore successor = TransactionManagerCore.start(config, Clock.SYSTEM,
                new ZooKeeperTimestampStorage(newClient, paths), new ZooKeeperFenceStore(newClient, paths),
                Lease.ALWAYS_HELD);
        assertEquals(Map.of(table, fence), new ZooKeeperFenceStore(newClient, paths).loadAll());
        long afterFence = successor.begin();
        assertTrue(afterFence > fence);
        CommitDecision decision = successor.commit(afterFence, new long[] {1}, new long[] {table});
        assertTrue(decision.isCommitted(), "a transaction that began after the fence is unaffected: " + decision);
        // A fence taken on the new primary is persisted too and aborts older writers of the table as FENCE.
        long before = successor.begin();
        long newerFence = successor.fence(table);
        assertEquals(AbortReason.FENCE,
                successor.commit(before, new long[] {2}, new long[] {table}).abortReason());
        assertEquals(Map.of(table, newerFence), new ZooKeeperFenceStore(zk.newClient(), paths).loadAll());
    }
}
