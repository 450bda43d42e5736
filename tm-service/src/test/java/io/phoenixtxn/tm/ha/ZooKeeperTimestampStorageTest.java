package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.LostPrimacyException;
import io.phoenixtxn.tm.TimestampOracle;
import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("slow")
class ZooKeeperTimestampStorageTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

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

    // An ambiguous write: ZooKeeper applied it but the answer was lost. The storage must recognise its own write
    // (else the TM reads "lost primacy" and stops for a lease), and must never take another writer's for its own.

    @Test
    @Timeout(30)
    void aWriteAppliedButAnsweredWithConnectionLossIsRecognisedByTheNextCall() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        ZooKeeperTimestampStorage observer = new ZooKeeperTimestampStorage(zk.newClient(), paths);
        assertTrue(storage.compareAndSet(0, 100));

        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_CONNECTION_LOSS);
        TmException unclear = assertThrows(TmException.class, () -> storage.compareAndSet(100, 200));
        assertEquals(1, node.injected());
        assertInstanceOf(KeeperException.ConnectionLossException.class, unclear.getCause());
        assertEquals(200, observer.getMaxTimestamp(), "the write was applied");

        // The caller still holds 100 as its reservation and tries again (with a later value).
        assertTrue(storage.compareAndSet(100, 300), "our own applied write is not another TM's");
        assertEquals(300, observer.getMaxTimestamp());
        assertTrue(storage.compareAndSet(300, 400), "and the storage goes on from there");
        assertEquals(400, observer.getMaxTimestamp());
    }

    @Test
    @Timeout(30)
    void aWriteAppliedAndRetriedIntoAVersionMismatchIsOurs() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        assertTrue(storage.compareAndSet(0, 100));

        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_RETRY_SEES_BAD_VERSION);
        assertTrue(storage.compareAndSet(100, 200), "the version moved because of our own first attempt");
        assertEquals(1, node.injected());
        assertEquals(200, new ZooKeeperTimestampStorage(zk.newClient(), paths).getMaxTimestamp());
        assertTrue(storage.compareAndSet(200, 300));
    }

    @Test
    @Timeout(30)
    void aChainOfAmbiguousWritesStaysOurs() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        ZooKeeperTimestampStorage observer = new ZooKeeperTimestampStorage(zk.newClient(), paths);
        assertTrue(storage.compareAndSet(0, 100));

        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_CONNECTION_LOSS);
        assertThrows(TmException.class, () -> storage.compareAndSet(100, 200));
        // The next call adopts 200 and moves it on to 300, and that answer is lost too.
        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_CONNECTION_LOSS);
        assertThrows(TmException.class, () -> storage.compareAndSet(100, 300));
        assertEquals(300, observer.getMaxTimestamp());
        // Lower than what we wrote last: still ours to set, since nothing was issued above 100.
        assertTrue(storage.compareAndSet(100, 250));
        assertEquals(250, observer.getMaxTimestamp());
        assertEquals(2, node.injected());
    }

    @Test
    @Timeout(30)
    void aWriteLostBeforeItAppliedIsSimplyRetried() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        assertTrue(storage.compareAndSet(0, 100));

        node.failNextWrite(FaultyZNode.Fault.CONNECTION_LOSS_NOT_APPLIED);
        assertThrows(TmException.class, () -> storage.compareAndSet(100, 200));
        assertEquals(100, new ZooKeeperTimestampStorage(zk.newClient(), paths).getMaxTimestamp());
        assertTrue(storage.compareAndSet(100, 300));
        assertEquals(300, new ZooKeeperTimestampStorage(zk.newClient(), paths).getMaxTimestamp());
    }

    @Test
    @Timeout(30)
    void aWriterAfterOurAmbiguousWriteWinsAndWeLose() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        ZooKeeperTimestampStorage successor = new ZooKeeperTimestampStorage(zk.newClient(), paths);
        assertTrue(storage.compareAndSet(0, 100));

        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_CONNECTION_LOSS);
        assertThrows(TmException.class, () -> storage.compareAndSet(100, 200));
        // A successor starts above our applied write and reserves its own epoch.
        assertEquals(200, successor.getMaxTimestamp());
        assertTrue(successor.compareAndSet(200, 500));

        assertFalse(storage.compareAndSet(100, 300), "another writer came after our write: we are no longer primary");
        assertFalse(storage.compareAndSet(100, 300), "every time");
        assertEquals(500, successor.getMaxTimestamp());
        assertTrue(successor.compareAndSet(500, 600), "the successor is unaffected");
    }

    @Test
    @Timeout(30)
    void anotherInstanceNeverTakesOurAmbiguousWriteForItsOwn() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        ZooKeeperTimestampStorage other = new ZooKeeperTimestampStorage(zk.newClient(), paths);
        assertTrue(storage.compareAndSet(0, 100));
        assertEquals(100, other.getMaxTimestamp());

        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_CONNECTION_LOSS);
        assertThrows(TmException.class, () -> storage.compareAndSet(100, 200));
        // Both believed the value was 100; only the writer of 200 may go on from it.
        assertFalse(other.compareAndSet(100, 300));
        assertTrue(storage.compareAndSet(100, 300));
        assertEquals(300, other.getMaxTimestamp());
    }

    @Test
    @Timeout(30)
    void readsAndMovesOnFromTheEightByteFormatOfEarlierVersions() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        CuratorFramework client = zk.newClient();
        client.create().creatingParentsIfNeeded().forPath(paths.timestamp(),
                ByteBuffer.allocate(Long.BYTES).putLong(4242).array());
        FaultyZNode node = new FaultyZNode(client, paths.timestamp());
        ZooKeeperTimestampStorage storage = new ZooKeeperTimestampStorage(node);
        assertEquals(4242, storage.getMaxTimestamp());

        node.failNextWrite(FaultyZNode.Fault.APPLIED_THEN_CONNECTION_LOSS);
        assertThrows(TmException.class, () -> storage.compareAndSet(4242, 5000));
        assertTrue(storage.compareAndSet(4242, 6000));
        assertEquals(6000, new ZooKeeperTimestampStorage(zk.newClient(), paths).getMaxTimestamp());
    }
}
