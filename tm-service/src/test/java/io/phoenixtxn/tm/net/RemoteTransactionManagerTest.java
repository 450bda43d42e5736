package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every request type end to end against a real core, over a real socket. */
@Timeout(60)
class RemoteTransactionManagerTest {
    private static final long TABLE = 0x7AB1E;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void everyRequestTypeRoundTrips() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        RemoteTransactionManager tm = track(NetTestSupport.connect(track(NetTestSupport.startServer(core))));

        long txId = tm.begin();
        assertTrue(txId > 0);
        CommitDecision committed = tm.commit(txId, new long[] {1, 2, 3}, new long[] {TABLE});
        assertTrue(committed.isCommitted());
        assertTrue(committed.commitTimestamp() > txId);

        long beforeFence = tm.begin();
        long fence = tm.fence(TABLE);
        assertTrue(fence > beforeFence);
        CommitDecision fenced = tm.commit(beforeFence, new long[] {4}, new long[] {TABLE});
        assertEquals(AbortReason.FENCE, fenced.abortReason());

        assertEquals(core.lowWaterMark(), tm.lowWaterMark());
        assertEquals(AbortReason.BELOW_LOW_WATER_MARK, tm.commit(-5, new long[] {5}, new long[0]).abortReason());

        long afterFence = tm.begin();
        assertTrue(tm.commit(afterFence, new long[0], new long[] {TABLE}).isCommitted(), "read-only commit");

        long load = tm.beginBulkLoad(new long[] {TABLE});
        long duringLoad = tm.begin();
        assertEquals(AbortReason.FENCE, tm.commit(duringLoad, new long[] {6}, new long[] {TABLE}).abortReason(),
                "a bulk load holds its table");
        TmException second = assertThrows(TmException.class, () -> tm.beginBulkLoad(new long[] {TABLE}));
        assertTrue(second.getMessage().contains("held by the bulk load of transaction " + load), second.getMessage());
        assertTrue(tm.commit(load, new long[0], new long[] {TABLE}).isCommitted());

        int open = core.openTransactions();
        long bare = tm.timestamp();
        assertTrue(bare > afterFence, "a fresh timestamp: " + bare);
        assertTrue(tm.timestampAsync().get(10, TimeUnit.SECONDS) > bare);
        assertEquals(open, core.openTransactions(), "a bare timestamp opens no transaction");
    }

    /**
     * Bare timestamps of region servers (NEW_TIMESTAMP) mixed with begins and commits from many threads through the
     * client's request coalescing and the server's batches: every answer reaches its own caller (a thread's
     * timestamps increase, none is handed out twice) and only the begins are open transactions.
     */
    @Test
    void bareTimestampsCoalescedWithBeginsFromManyThreadsReachTheirCallersAndOpenNothing() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        RemoteTransactionManager tm = track(NetTestSupport.connect(track(NetTestSupport.startServer(core))));
        int threads = 8;
        int rounds = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    long[] timestamps = new long[rounds * 2];
                    for (int i = 0; i < rounds; i++) {
                        timestamps[2 * i] = tm.timestamp();
                        long txId = tm.begin();
                        timestamps[2 * i + 1] = txId;
                        if (i % 2 == 0) {
                            assertTrue(tm.commit(txId, new long[] {thread << 32 | i}, new long[] {TABLE})
                                    .isCommitted());
                            tm.finished(new long[] {txId});
                        }
                    }
                    return timestamps;
                }));
            }
            start.countDown();
            Set<Long> all = new HashSet<>();
            for (Future<long[]> result : results) {
                long[] timestamps = result.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < timestamps.length; i++) {
                    if (i > 0) {
                        assertTrue(timestamps[i] > timestamps[i - 1], "timestamps of a thread must increase");
                    }
                    assertTrue(all.add(timestamps[i]), "duplicate timestamp " + timestamps[i]);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (core.openTransactions() != threads * rounds / 2) { // FINISHED is not awaited by the client
                assertTrue(System.nanoTime() < deadline, "open transactions: " + core.openTransactions()
                        + ", expected only the " + threads * rounds / 2 + " begins never finished");
                Thread.onSpinWait();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void pendingStatusMatchesTheCoresAnswer() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        RemoteTransactionManager tm = track(NetTestSupport.connect(track(NetTestSupport.startServer(core))));
        long undecided = tm.begin();
        long committed = tm.begin();
        CommitDecision decision = tm.commit(committed, new long[] {7}, new long[] {TABLE});
        long aborted = tm.begin();
        long winner = tm.begin();
        assertTrue(tm.commit(winner, new long[] {8}, new long[0]).isCommitted());
        assertFalse(tm.commit(aborted, new long[] {8}, new long[0]).isCommitted());

        long reader = tm.begin();

        PendingStatus remote = tm.pendingStatus(committed, reader);
        assertEquals(PendingStatus.Kind.DECIDED, remote.kind());
        assertEquals(decision.commitTimestamp(), remote.commitTs());
        for (long txId : new long[] {undecided, aborted, 1L, Long.MAX_VALUE}) {
            assertEquals(core.pendingStatus(txId, reader).toString(), tm.pendingStatus(txId, reader).toString(),
                    "tx " + txId);
        }
        assertEquals(core.pendingStatus(committed, reader).toString(),
                tm.pendingStatusAsync(committed, reader).get().toString());
    }

    @Test
    void asyncCallsMatchBlockingOnes() throws Exception {
        RemoteTransactionManager tm = track(NetTestSupport.connect(track(NetTestSupport.startServer(
                track(NetTestSupport.newCore())))));
        long early = tm.beginAsync().get();
        long earlyToo = tm.beginAsync().get();
        long txId = tm.beginAsync().get();
        long[] rows = {10, 11};
        CompletableFuture<CommitDecision> decision = tm.commitAsync(txId, rows, new long[] {TABLE});
        rows[0] = 99; // commitAsync copied the arrays: the write set stays {10, 11}
        assertTrue(decision.get().isCommitted());
        assertTrue(tm.commitAsync(early, new long[] {99}, new long[0]).get().isCommitted());
        assertEquals(AbortReason.CONFLICT, tm.commitAsync(earlyToo, new long[] {10}, new long[0]).get()
                .abortReason());
        long next = tm.beginAsync().get();
        assertTrue(tm.fenceAsync(TABLE).get() > next);
        assertTrue(tm.lowWaterMarkAsync().get() >= 0);
    }

    @Test
    void conflictAcrossTwoClientsAborts() throws Exception {
        TmServer server = track(NetTestSupport.startServer(track(NetTestSupport.newCore())));
        RemoteTransactionManager first = track(NetTestSupport.connect(server));
        RemoteTransactionManager second = track(NetTestSupport.connect(server));

        long t1 = first.begin();
        long t2 = second.begin();
        assertTrue(first.commit(t1, new long[] {42}, new long[] {TABLE}).isCommitted());
        CommitDecision loser = second.commit(t2, new long[] {42}, new long[] {TABLE});
        assertFalse(loser.isCommitted());
        assertEquals(AbortReason.CONFLICT, loser.abortReason());
    }

    @Test
    void oversizeWriteSetFailsWithTheServersReason() throws Exception {
        TmServer server = track(NetTestSupport.startServer(track(NetTestSupport.newCoreWithMaxWriteSet(4))));
        RemoteTransactionManager tm = track(NetTestSupport.connect(server));
        long txId = tm.begin();
        // Five distinct rows: the client drops duplicate rows before sending (it sorts them for the TM's table).
        TmException e = assertThrows(TmException.class, () -> tm.commit(txId, new long[] {1, 2, 3, 4, 5},
                new long[0]));
        assertTrue(e.getMessage().contains(TmConfig.MAX_WRITE_SET), e.getMessage());
        assertTrue(e.getMessage().contains("split the transaction"), e.getMessage());
        assertTrue(tm.commit(tm.begin(), new long[4], new long[0]).isCommitted(), "the client keeps working");
    }

    @Test
    void writeSetAboveTheFrameLimitFailsBeforeSending() throws Exception {
        TmServer server = track(NetTestSupport.startServer(track(NetTestSupport.newCore())));
        RemoteTransactionManager tm = track(NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withMaxFrameBytes(1024).withConnections(1)));
        long txId = tm.begin();
        TmException e = assertThrows(TmException.class, () -> tm.commit(txId, new long[200], new long[] {TABLE}));
        assertTrue(e.getMessage().contains(RemoteTmConfig.MAX_FRAME_BYTES), e.getMessage());
        assertTrue(tm.commit(txId, new long[] {1}, new long[] {TABLE}).isCommitted());
        assertEquals(1, tm.connectionsOpened(), "the shared connection must survive");
    }

    @ParameterizedTest(name = "{0} connection(s)")
    @ValueSource(ints = {1, 2})
    void manyThreadsPipelineOverFewConnections(int connections) throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        TmServer server = track(NetTestSupport.startServer(core));
        RemoteTransactionManager tm = track(NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withConnections(connections)));
        int threads = 32;
        int rounds = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        resources.add(pool::shutdownNow);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long thread = t;
            results.add(pool.submit(() -> {
                start.await();
                long[] timestamps = new long[rounds * 2];
                for (int i = 0; i < rounds; i++) {
                    long txId = tm.begin();
                    // Rows are private to the thread, so every commit must succeed.
                    CommitDecision decision = tm.commit(txId, new long[] {thread << 32 | i}, new long[] {TABLE});
                    assertTrue(decision.isCommitted(), decision.toString());
                    timestamps[2 * i] = txId;
                    timestamps[2 * i + 1] = decision.commitTimestamp();
                }
                return timestamps;
            }));
        }
        start.countDown();
        Set<Long> all = new HashSet<>();
        for (Future<long[]> result : results) {
            long[] timestamps = result.get();
            for (int i = 0; i < timestamps.length; i++) {
                if (i > 0) {
                    assertTrue(timestamps[i] > timestamps[i - 1], "timestamps of a thread must increase");
                }
                assertTrue(all.add(timestamps[i]), "duplicate timestamp " + timestamps[i]);
            }
        }
        assertEquals(threads * rounds * 2, all.size());
        assertTrue(tm.connectionsOpened() <= connections, "opened " + tm.connectionsOpened());
        assertTrue(server.connectionCount() <= connections, "server sees " + server.connectionCount());
    }

    @Test
    void oneThreadKeepsManyRequestsInFlight() throws Exception {
        RemoteTransactionManager tm = track(NetTestSupport.connect(track(NetTestSupport.startServer(
                track(NetTestSupport.newCore()))), NetTestSupport.clientConfig().withConnections(1)));
        List<CompletableFuture<Long>> begins = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            begins.add(tm.beginAsync());
        }
        Set<Long> unique = new HashSet<>();
        for (CompletableFuture<Long> begin : begins) {
            assertTrue(unique.add(begin.get()));
        }
        assertEquals(1, tm.connectionsOpened());
    }

    @Test
    void closedClientFailsClearly() throws Exception {
        RemoteTransactionManager tm = NetTestSupport.connect(track(NetTestSupport.startServer(
                track(NetTestSupport.newCore()))));
        tm.close();
        TmException e = assertThrows(TmException.class, tm::begin);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        tm.close();
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }
}
