package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.FenceStore;
import io.phoenixtxn.tm.InMemoryTimestampStorage;
import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.metrics.MetricsSnapshot;
import io.phoenixtxn.tm.metrics.TmMetrics;
import io.phoenixtxn.tm.metrics.TmMetricsSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TM server's own gauges: connected clients, and requests queued for a worker while the only worker is held
 * by a fence whose persistence the test blocks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TmServerMetricsTest {

    /** Fence persistence that waits for the test's word. */
    private static final class BlockingFenceStore implements FenceStore {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Map<Long, Long> fences = new ConcurrentHashMap<>();

        @Override
        public void persist(long tableId, long fenceTs) throws TmException {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TmException("interrupted");
            }
            fences.put(tableId, fenceTs);
        }

        @Override
        public Map<Long, Long> loadAll() {
            return Map.copyOf(fences);
        }
    }

    @Test
    void connectedClientsAndRequestQueueDepthAreReported() throws Exception {
        BlockingFenceStore fenceStore = new BlockingFenceStore();
        TmMetrics metrics = new TmMetrics();
        try (TransactionManagerCore core = TransactionManagerCore.start(
                TmConfig.defaults().withConflictEntries(1 << 16), Clock.SYSTEM, new InMemoryTimestampStorage(),
                fenceStore, Lease.ALWAYS_HELD, metrics);
             TmServer server = TmServer.start(core, NetTestSupport.serverConfig().withWorkerThreads(1))) {
            TmMetricsSource source = new TmMetricsSource(metrics, () -> core, () -> server);
            assertEquals(0, MetricsSnapshot.of(source).get("ConnectedClients"));
            assertEquals(0, MetricsSnapshot.of(source).get("RequestQueueDepth"));
            try (RemoteTransactionManager client = NetTestSupport.connect(server)) {
                client.begin();
                awaitMetric(source, "ConnectedClients", n -> n >= 1);

                CompletableFuture<Long> fence = client.fenceAsync(7);
                assertTrue(fenceStore.entered.await(10, TimeUnit.SECONDS), "the fence never reached its store");
                // The only worker persists the fence: the next worker request waits in the queue.
                CompletableFuture<Long> mark = client.lowWaterMarkAsync();
                awaitMetric(source, "RequestQueueDepth", n -> n >= 1);

                fenceStore.release.countDown();
                assertTrue(fence.get(10, TimeUnit.SECONDS) > 0);
                assertTrue(mark.get(10, TimeUnit.SECONDS) >= 0);
                awaitMetric(source, "RequestQueueDepth", n -> n == 0);
            } finally {
                fenceStore.release.countDown();
            }
        }
    }

    /** Polls the source until the metric satisfies {@code condition} (10 s at most). */
    private static void awaitMetric(TmMetricsSource source, String name, Predicate<Long> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Map<String, Number> seen = MetricsSnapshot.of(source);
        while (!condition.test(seen.get(name).longValue())) {
            assertTrue(System.nanoTime() < deadline, name + " never reached the expected value: " + seen);
            TimeUnit.MILLISECONDS.sleep(10);
            seen = MetricsSnapshot.of(source);
        }
    }
}
