package io.phoenixtxn.tm.net;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.FenceStore;
import io.phoenixtxn.tm.InMemoryTimestampStorage;
import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's pipeline for hot requests (BatchDecider): the requests of one read are decided together and
 * answered in one flush, BEGINs share one timestamp-oracle step, a malformed frame among them is answered by the
 * general path without disturbing the others, and a batch that would wait (a fence being persisted) goes to a
 * worker while the event loop keeps answering.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BatchPipelineTest {
    private static final long TABLE = 0x7AB1EL;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** Counts wall-clock reads: the oracle reads the clock once per step. */
    private static final class CountingClock implements Clock {
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public long millis() {
            reads.incrementAndGet();
            return System.currentTimeMillis();
        }
    }

    @Test
    void beginsReadTogetherShareOneOracleStepAndGetConsecutiveSlots() throws Exception {
        CountingClock clock = new CountingClock();
        TransactionManagerCore core = track(TransactionManagerCore.start(TmConfig.defaults()
                .withConflictEntries(1 << 16), clock, new InMemoryTimestampStorage(), FenceStore.inMemory(),
                Lease.ALWAYS_HELD));
        TmServer server = track(TmServer.start(core, NetTestSupport.serverConfig()));
        RawClient client = track(new RawClient(server.address()));
        client.hello();

        int begins = 100;
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < begins; i++) {
            burst.write(frame(MessageType.BEGIN, 100 + i, new byte[0]));
        }
        int readsBefore = clock.reads.get();
        client.sendBytes(burst.toByteArray()); // one write: the server reads the burst in one pass
        Map<Long, Long> starts = new HashMap<>();
        for (int i = 0; i < begins; i++) {
            RawClient.Frame answer = client.readFrame();
            assertTrue(answer.is(MessageType.TIMESTAMP), answer.text());
            starts.put(answer.requestId(), ByteBuffer.wrap(answer.payload()).getLong());
        }
        int reads = clock.reads.get() - readsBefore;
        assertTrue(reads < begins / 10, "the oracle was asked " + reads + " times for " + begins
                + " begins read together; they should share a step");
        List<Long> sorted = new ArrayList<>(starts.values());
        sorted.sort(null);
        for (int i = 1; i < sorted.size(); i++) {
            assertTrue(sorted.get(i) > sorted.get(i - 1), "distinct, increasing starts");
        }
        // Requests are answered in the order they came, and one oracle step hands out consecutive slots.
        for (int i = 1; i < begins; i++) {
            long previous = starts.get(100L + i - 1);
            assertEquals(TimestampLayout.nextSlotStart(previous), (long) starts.get(100L + i),
                    "BEGIN " + i + " of a batch");
        }
        assertEquals(begins, core.openTransactions(), "every start is registered as open");
    }

    /** Records which threads read the wall clock: the oracle reads it in every step, on the deciding thread. */
    private static final class ThreadRecordingClock implements Clock {
        final java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public long millis() {
            threads.add(Thread.currentThread().getName());
            return System.currentTimeMillis();
        }
    }

    /**
     * Bare timestamps (NEW_TIMESTAMP, protocol v4: region servers' fast-path version clocks) read together with
     * BEGINs are decided in the same batch on the event loop, not handed to a worker: answered in the order they
     * came, each above every timestamp answered before it, and none registered as an open transaction.
     */
    @Test
    void bareTimestampsReadWithBeginsAreDecidedInTheBatchInOrderAndOpenNoTransaction() throws Exception {
        ThreadRecordingClock clock = new ThreadRecordingClock();
        TransactionManagerCore core = track(TransactionManagerCore.start(TmConfig.defaults()
                .withConflictEntries(1 << 16), clock, new InMemoryTimestampStorage(), FenceStore.inMemory(),
                Lease.ALWAYS_HELD));
        TmServer server = track(TmServer.start(core, NetTestSupport.serverConfig()));
        RawClient client = track(new RawClient(server.address()));
        client.hello();
        MessageType[] kinds = {MessageType.BEGIN, MessageType.NEW_TIMESTAMP, MessageType.BEGIN,
            MessageType.NEW_TIMESTAMP, MessageType.NEW_TIMESTAMP, MessageType.BEGIN};
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < kinds.length; i++) {
            burst.write(frame(kinds[i], 50 + i, new byte[0]));
        }
        clock.threads.clear();
        client.sendBytes(burst.toByteArray()); // one write: the server reads the burst in one pass
        long[] values = new long[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            RawClient.Frame answer = client.readFrame();
            assertEquals(50 + i, answer.requestId(), "answered in the order they came");
            assertTrue(answer.is(MessageType.TIMESTAMP), answer.text());
            values[i] = ByteBuffer.wrap(answer.payload()).getLong();
            assertTrue(TimestampLayout.isSlotStart(values[i]));
        }
        for (int i = 0; i < kinds.length; i++) {
            for (int j = 0; j < i; j++) {
                assertTrue(values[i] != values[j], "distinct timestamps");
                if (kinds[i] == MessageType.NEW_TIMESTAMP) {
                    assertTrue(values[i] > values[j], "a bare timestamp above every one answered before it");
                }
            }
        }
        assertEquals(3, core.openTransactions(), "only the BEGINs are open transactions");
        assertFalse(clock.threads.isEmpty());
        for (String thread : clock.threads) {
            assertFalse(thread.startsWith("phoenix-txn-tm-worker"), "a NEW_TIMESTAMP of the batch was decided on"
                    + " worker " + thread + " instead of the event loop with its batch");
        }
    }

    /** A primary that lost its lease answers a batched NEW_TIMESTAMP with an error, never with a timestamp. */
    @Test
    void aBatchedBareTimestampOfADeposedPrimaryIsAnError() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
        TransactionManagerCore core = track(TransactionManagerCore.start(TmConfig.defaults()
                .withConflictEntries(1 << 16), Clock.SYSTEM, new InMemoryTimestampStorage(), FenceStore.inMemory(),
                held::get));
        TmServer server = track(TmServer.start(core, NetTestSupport.serverConfig()));
        RawClient client = track(new RawClient(server.address()));
        client.hello();
        client.sendFrame(MessageType.NEW_TIMESTAMP, 60, new byte[0]);
        assertTrue(client.readFrame().is(MessageType.TIMESTAMP));
        held.set(false);
        client.sendFrame(MessageType.NEW_TIMESTAMP, 61, new byte[0]);
        RawClient.Frame answer = client.readFrame();
        assertEquals(61, answer.requestId());
        assertTrue(answer.is(MessageType.ERROR), "a deposed primary must not hand out a timestamp: " + answer.text());
    }

    @Test
    void aMalformedCommitInABatchGetsAnErrorAndTheOthersTheirDecisions() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        TmServer server = track(NetTestSupport.startServer(core));
        RawClient client = track(new RawClient(server.address()));
        client.hello();
        long tx1 = core.begin();
        long tx2 = core.begin();
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        burst.write(frame(MessageType.COMMIT, 10, commit(tx1, new long[] {1, 2}, TABLE)));
        byte[] truncated = commit(tx2, new long[] {3}, TABLE);
        burst.write(frame(MessageType.COMMIT, 11, java.util.Arrays.copyOf(truncated, truncated.length - 3)));
        burst.write(frame(MessageType.COMMIT, 12, commit(tx2, new long[] {1}, TABLE))); // conflicts with tx1
        burst.write(frame(MessageType.FINISHED, 13, ByteBuffer.allocate(4 + 8).putInt(1).putLong(tx1).array()));
        client.sendBytes(burst.toByteArray());
        Map<Long, RawClient.Frame> answers = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            RawClient.Frame answer = client.readFrame();
            answers.put(answer.requestId(), answer);
        }
        assertTrue(answers.get(10L).is(MessageType.COMMITTED), answers.get(10L).text());
        assertTrue(answers.get(11L).is(MessageType.ERROR));
        assertTrue(answers.get(11L).text().contains("malformed COMMIT"), answers.get(11L).text());
        assertTrue(answers.get(12L).is(MessageType.ABORTED));
        assertEquals(AbortReason.CONFLICT.wireCode(), answers.get(12L).payload()[0]);
        assertTrue(answers.get(13L).is(MessageType.DONE));
        assertEquals(1, core.openTransactions(), "tx1 finished, tx2 still open");
    }

    @Test
    void aBatchThatWouldWaitForAFenceGoesToAWorkerAndTheEventLoopKeepsAnswering() throws Exception {
        CountDownLatch persisting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FenceStore slow = new FenceStore() {
            private final FenceStore memory = FenceStore.inMemory();

            @Override
            public void persist(long tableId, long fenceTs) throws TmException {
                persisting.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                memory.persist(tableId, fenceTs);
            }

            @Override
            public Map<Long, Long> loadAll() throws TmException {
                return memory.loadAll();
            }
        };
        TransactionManagerCore core = track(TransactionManagerCore.start(TmConfig.defaults()
                .withConflictEntries(1 << 16), Clock.SYSTEM, new InMemoryTimestampStorage(), slow,
                Lease.ALWAYS_HELD));
        TmServer server = track(TmServer.start(core, NetTestSupport.serverConfig().withIoThreads(1)));
        RawClient client = track(new RawClient(server.address(), 3_000));
        client.hello();
        long writer = core.begin();
        long reader = core.begin();
        CompletableFuture<Long> fence = CompletableFuture.supplyAsync(() -> {
            try {
                return core.fence(TABLE);
            } catch (TmException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(persisting.await(10, TimeUnit.SECONDS), "the fence never reached its store");

        client.sendFrame(MessageType.COMMIT, 20, commit(writer, new long[] {7}, TABLE));
        // The commit is being decided (marked in the decision log) and waits for the fence...
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (core.pendingStatusAsync(writer, reader).isDone()) {
            assertTrue(System.nanoTime() < deadline, "the commit never started");
            Thread.onSpinWait();
        }
        // ...on a worker: the event loop still answers.
        client.sendFrame(MessageType.PING, 21, new byte[0]);
        RawClient.Frame first;
        try {
            first = client.readFrame();
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("no PONG within 3 s: the event loop waits for the fence with the commit", e);
        }
        assertTrue(first.is(MessageType.PONG), "the event loop must answer while a commit waits for the fence,"
                + " got " + first.type());
        assertFalse(fence.isDone());
        release.countDown();
        RawClient.Frame decision = client.readFrame();
        assertEquals(20, decision.requestId());
        assertTrue(decision.is(MessageType.ABORTED), decision.text());
        assertEquals(AbortReason.FENCE.wireCode(), decision.payload()[0], "began before the fence");
        assertTrue(fence.get(10, TimeUnit.SECONDS) > writer);
    }

    /**
     * Every request kind of protocol v3 in one read, batched and general paths mixed, on the second epoch of a TM
     * (low-water mark raised, horizon grace period running): each gets the answer a request sent alone would get.
     */
    @Test
    void everyRequestKindOfOneReadGetsItsOwnAnswer() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        TmConfig config = TmConfig.defaults().withConflictEntries(1 << 16);
        TransactionManagerCore.start(config, Clock.SYSTEM, storage, FenceStore.inMemory(), Lease.ALWAYS_HELD)
                .close(); // the first epoch: what the second TM's low-water mark starts above
        TransactionManagerCore core = track(TransactionManagerCore.start(config, Clock.SYSTEM, storage,
                FenceStore.inMemory(), Lease.ALWAYS_HELD));
        TmServer server = track(TmServer.start(core, NetTestSupport.serverConfig()));
        RawClient client = track(new RawClient(server.address()));
        client.hello();
        long plain = core.begin();
        long earlier = core.begin();
        long replaying = core.begin();
        long finished = core.begin();
        core.finished(new long[] {finished});
        long reader = core.begin();
        long fromEarlierEpoch = core.epochBase() - 1;

        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        burst.write(frame(MessageType.BEGIN, 30, new byte[0]));
        burst.write(frame(MessageType.COMMIT, 31, commit(plain, plain, new long[] {41, 42}, TABLE)));
        // A replay validates from an earlier transaction's start (its floor): in this epoch it is decided as usual,
        // from an earlier epoch the history it needs is gone.
        burst.write(frame(MessageType.COMMIT, 32, commit(replaying, earlier, new long[] {43}, TABLE)));
        burst.write(frame(MessageType.COMMIT, 33, commit(earlier, fromEarlierEpoch, new long[] {44}, TABLE)));
        burst.write(frame(MessageType.COMMIT, 34, commit(finished, finished, new long[] {45}, TABLE)));
        burst.write(frame(MessageType.COMMIT, 35, commit(reader, reader + 1, new long[] {46}, TABLE)));
        burst.write(frame(MessageType.PENDING_STATUS, 36, ByteBuffer.allocate(16).putLong(earlier)
                .putLong(reader).array()));
        burst.write(frame(MessageType.KEEP_ALIVE, 37, ByteBuffer.allocate(4 + 16).putInt(2).putLong(reader)
                .putLong(fromEarlierEpoch).array()));
        burst.write(frame(MessageType.HORIZON, 38, new byte[0]));
        burst.write(frame(MessageType.LOW_WATER_MARK, 39, new byte[0]));
        burst.write(frame(MessageType.FENCE, 40, ByteBuffer.allocate(8).putLong(0xFE4CEL).array()));
        burst.write(frame(MessageType.PING, 41, new byte[0]));
        burst.write(frame(MessageType.FINISHED, 42, ByteBuffer.allocate(4 + 8).putInt(1).putLong(plain).array()));
        client.sendBytes(burst.toByteArray());
        Map<Long, RawClient.Frame> answers = new HashMap<>();
        for (int i = 0; i < 13; i++) {
            RawClient.Frame answer = client.readFrame();
            answers.put(answer.requestId(), answer);
        }

        assertTrue(answers.get(30L).is(MessageType.TIMESTAMP), answers.get(30L).text());
        long begun = ByteBuffer.wrap(answers.get(30L).payload()).getLong();
        assertTrue(begun > reader, "a new start above every earlier one");
        assertTrue(answers.get(31L).is(MessageType.COMMITTED), answers.get(31L).text());
        assertTrue(answers.get(32L).is(MessageType.COMMITTED), "a replay from a floor in this epoch: "
                + answers.get(32L).text());
        assertAborted(answers.get(33L), AbortReason.BELOW_LOW_WATER_MARK);
        assertAborted(answers.get(34L), AbortReason.EXPIRED);
        assertTrue(answers.get(35L).is(MessageType.ERROR), "conflicts since after the start");
        assertTrue(answers.get(35L).text().contains("after its own start"), answers.get(35L).text());
        assertTrue(answers.get(36L).is(MessageType.STATUS), answers.get(36L).text());
        assertEquals(io.phoenixtxn.tm.PendingStatus.Kind.NOT_DECIDED.wireCode(), answers.get(36L).payload()[0],
                "its commit aborted below the low-water mark: it never committed");
        assertTrue(answers.get(37L).is(MessageType.TXIDS), answers.get(37L).text());
        assertEquals(0, ByteBuffer.wrap(answers.get(37L).payload()).getInt(),
                "during the grace period an unknown transaction is adopted, not expired");
        assertTrue(answers.get(38L).is(MessageType.HORIZON_IS), answers.get(38L).text());
        ByteBuffer horizon = ByteBuffer.wrap(answers.get(38L).payload());
        assertEquals(-1, horizon.getLong(), "no GC horizon during a new primary's grace period");
        assertEquals(-1, horizon.getLong());
        assertTrue(answers.get(39L).is(MessageType.TIMESTAMP));
        assertEquals(core.epochBase(), ByteBuffer.wrap(answers.get(39L).payload()).getLong(),
                "the low-water mark starts at the earlier epoch's end");
        assertTrue(answers.get(40L).is(MessageType.TIMESTAMP), answers.get(40L).text());
        assertTrue(answers.get(41L).is(MessageType.PONG));
        assertTrue(answers.get(42L).is(MessageType.DONE));
        // Open: the burst's BEGIN, earlier, replaying, the reader, the adopted one and the fence; the two finished
        // ones are gone.
        assertEquals(6, core.openTransactions(), "open transactions after the burst");
    }

    @Test
    void aStoppedTmAnswersBatchedRequestsWithErrorsNamingWhy() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        TmServer server = track(NetTestSupport.startServer(core));
        RawClient client = track(new RawClient(server.address()));
        client.hello();
        long tx = core.begin();
        core.stop("lost the lease in this test");
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        burst.write(frame(MessageType.BEGIN, 50, new byte[0]));
        burst.write(frame(MessageType.COMMIT, 51, commit(tx, tx, new long[] {1}, TABLE)));
        burst.write(frame(MessageType.FINISHED, 52, ByteBuffer.allocate(4 + 8).putInt(1).putLong(tx).array()));
        client.sendBytes(burst.toByteArray());
        for (int i = 0; i < 3; i++) {
            RawClient.Frame answer = client.readFrame();
            assertTrue(answer.is(MessageType.ERROR), "request " + answer.requestId() + ": " + answer.text());
            assertTrue(answer.text().contains("lost the lease in this test"), answer.text());
        }
    }

    private static void assertAborted(RawClient.Frame answer, AbortReason reason) {
        assertTrue(answer.is(MessageType.ABORTED), "expected ABORTED " + reason + ", got "
                + MessageType.of((byte) answer.type()));
        assertEquals(reason.wireCode(), answer.payload()[0], "abort reason");
    }

    private static byte[] frame(MessageType type, long id, byte[] payload) {
        return ByteBuffer.allocate(4 + 9 + payload.length).putInt(9 + payload.length).put(type.code()).putLong(id)
                .put(payload).array();
    }

    private static byte[] commit(long txId, long[] rows, long table) {
        return commit(txId, txId, rows, table);
    }

    private static byte[] commit(long txId, long conflictsSince, long[] rows, long table) {
        ByteBuffer b = ByteBuffer.allocate(8 + 8 + 4 + 8 * rows.length + 4 + 8);
        b.putLong(txId).putLong(conflictsSince).putInt(rows.length);
        for (long row : rows) {
            b.putLong(row);
        }
        return b.putInt(1).putLong(table).array();
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }
}
