package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.LostPrimacyException;
import io.phoenixtxn.tm.TimestampOracle;
import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZooKeeperTimestampStorageTest {
    private static ZkTestCluster zk;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new ZkTestCluster();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    @Timeout(30)
    void compareAndSetSucceedsOnlyFromTheCurrentValue() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        ZooKeeperTimestampStorage first = new ZooKeeperTimestampStorage(zk.newClient(), paths);
        ZooKeeperTimestampStorage second = new ZooKeeperTimestampStorage(zk.newClient(), paths);

        assertEquals(0, first.getMaxTimestamp(), "a node that was never written reads as 0");
        assertTrue(first.compareAndSet(0, 100));
        assertFalse(first.compareAndSet(0, 200), "the value moved on: a CAS from the old value must fail");
        assertEquals(100, second.getMaxTimestamp(), "persisted: another client sees it");

        assertTrue(second.compareAndSet(100, 300));
        // first's cached version is stale now; it must notice rather than overwrite.
        assertFalse(first.compareAndSet(100, 400));
        assertEquals(300, first.getMaxTimestamp());
        assertTrue(first.compareAndSet(300, 500));
        assertEquals(500, second.getMaxTimestamp());
    }

    @Test
    @Timeout(30)
    void firstUseRaceCreatesTheNodeOnce() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        int racers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Long>> reads = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                CuratorFramework client = zk.newClient();
                reads.add(pool.submit(() -> {
                    go.await();
                    return new ZooKeeperTimestampStorage(client, paths).getMaxTimestamp();
                }));
            }
            go.countDown();
            for (Future<Long> read : reads) {
                assertEquals(0L, read.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(60)
    void concurrentCompareAndSetLosesNoUpdate() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        int threads = 6;
        int incrementsEach = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong failedCas = new AtomicLong();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(zk.newClient(), paths);
                workers.add(pool.submit(() -> {
                    go.await();
                    int done = 0;
                    while (done < incrementsEach) {
                        long current = storage.getMaxTimestamp();
                        if (storage.compareAndSet(current, current + 1)) {
                            done++;
                        } else {
                            failedCas.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdownNow();
        }
        // Every successful CAS added exactly one: any lost update would leave the total short.
        assertEquals((long) threads * incrementsEach,
                new ZooKeeperTimestampStorage(zk.newClient(), paths).getMaxTimestamp());
        assertTrue(failedCas.get() > 0, "the threads should have contended at least once");
    }

    @Test
    @Timeout(30)
    void aNewOracleIssuesAboveEverythingTheOldOneReservedAndTheOldOneStops() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        AtomicLong oldWallClock = new AtomicLong(System.currentTimeMillis());
        TimestampOracle old = new TimestampOracle(oldWallClock::get,
                new ZooKeeperTimestampStorage(zk.newClient(), paths), 1_000);
        old.initialize();
        long oldLast = 0;
        for (int i = 0; i < 1_000; i++) {
            oldLast = old.next();
        }
        long oldReservation = old.reservedMax();

        TimestampOracle successor = new TimestampOracle(Clock.SYSTEM,
                new ZooKeeperTimestampStorage(zk.newClient(), paths), 1_000);
        long epochBase = successor.initialize();
        assertEquals(oldReservation, epochBase);
        long first = successor.next();
        assertTrue(first > oldReservation && first > oldLast,
                "first timestamp of the new epoch " + first + " must exceed the old reservation " + oldReservation);
        // The old oracle runs out of its reservation: the next one must fail its compare-and-set.
        oldWallClock.addAndGet(5_000);
        assertThrows(LostPrimacyException.class, old::next);
    }

    @Test
    @Timeout(30)
    void aForeignValueIsAClearError() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        CuratorFramework client = zk.newClient();
        client.create().creatingParentsIfNeeded().forPath(paths.timestamp(), "hello".getBytes());
        TmException e = assertThrows(TmException.class,
                () -> new ZooKeeperTimestampStorage(client, paths).getMaxTimestamp());
        assertTrue(e.getMessage().contains(paths.timestamp()) && e.getMessage().contains(HaConfig.ZK_PATH),
                e.getMessage());
    }
}
