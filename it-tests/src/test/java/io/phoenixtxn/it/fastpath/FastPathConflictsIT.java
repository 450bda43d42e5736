package io.phoenixtxn.it.fastpath;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.fastpath.BrwcResult;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.client.fastpath.FastPathFunction;
import io.phoenixtxn.client.fastpath.FastPathStats;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.client.fastpath.FastPathWriteConflictException;
import io.phoenixtxn.coprocessor.fastpath.FastPathHooks;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fast-path and regular transactions on the same rows (VLDB'18 sec. 4.2 and Figure 3), each interleaving forced
 * (hooks and latches, no sleeps).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FastPathConflictsIT {
    private static FastPathFixture fx;

    @BeforeAll
    static void open() throws Exception {
        fx = FastPathFixture.open();
    }

    @AfterAll
    static void close() {
        fx.close();
    }

    /**
     * Figure 3: T1 reads x, a fast-path write to x commits, T1 writes x. T1's read bumped the clock to its start, so
     * the fast-path version is above it, and T1's write finds it: T1 aborts (nothing else would: the TM never sees
     * fast-path commits).
     */
    @Test
    void aRegularTransactionThatReadTheRowBeforeAFastPathCommitAbortsAtItsWrite() throws Exception {
        TableName name = FastPathFixture.createTable("fp_fig3");
        try (FastPathTable fp = fx.fastPathTable(name); TransactionalTable t = fx.table(name)) {
            fp.bwc(FastPathFixture.put("x", 0));
            Transaction t1 = fx.client.begin();
            assertEquals(0L, FastPathFixture.value(t.get(t1, FastPathFixture.get("x"))));
            long fpVersion = fp.bwc(FastPathFixture.put("x", 1));
            assertTrue(fpVersion > t1.txId(), "T1's read moved the clock past its start: " + fpVersion + " <= "
                    + t1.txId());
            FastPathWriteConflictException conflict = assertThrows(FastPathWriteConflictException.class,
                    () -> t.put(t1, FastPathFixture.put("x", 100)));
            assertTrue(conflict.getMessage().startsWith(FastPathAbortedException.SQL_PREFIX), conflict.getMessage());
            assertTrue(conflict.getMessage().contains("Transaction " + t1.txId()), conflict.getMessage());
            fx.client.abort(t1);
            assertEquals(1L, fx.readRegular(name, "x"), "the fast-path write survives");
        }
    }

    /**
     * The relaxation (VLDB'18 sec. 2): a regular transaction that had not read the row may be serialized after a
     * fast-path write that came later in real time; it then sees it, and may overwrite it.
     */
    @Test
    void aRegularTransactionThatHadNotReadTheRowMayBeSerializedAfterALaterFastPathWrite() throws Exception {
        TableName name = FastPathFixture.createTable("fp_relax");
        try (FastPathTable fp = fx.fastPathTable(name); TransactionalTable t = fx.table(name)) {
            fp.bwc(FastPathFixture.put("warm", 0)); // the region bootstraps: its clock is in a slot older than T1
            Transaction t1 = fx.client.begin();
            long fpVersion = fp.bwc(FastPathFixture.put("x", 5));
            assertTrue(fpVersion < t1.txId(), "the region server never saw T1: " + fpVersion + " >= " + t1.txId());
            assertEquals(5L, FastPathFixture.value(t.get(t1, FastPathFixture.get("x"))),
                    "T1 is serialized after the write: its snapshot holds it");
            t.put(t1, FastPathFixture.put("x", 6));
            fx.client.commit(t1);
            assertEquals(6L, fx.readRegular(name, "x"));
        }
    }

    /** A pending regular writer blocks the fast path (VLDB'18 Alg. 4 line 12); the regular retry competes as usual. */
    @Test
    void aBlindWriteOverATentativeVersionAbortsAndItsRegularRetryCommits() throws Exception {
        TableName name = FastPathFixture.createTable("fp_tentative");
        try (FastPathTable fp = fx.fastPathTable(name); TransactionalTable t = fx.table(name)) {
            Transaction pending = fx.client.begin();
            t.put(pending, FastPathFixture.put("x", 1));
            FastPathAbortedException aborted = assertThrows(FastPathAbortedException.class,
                    () -> fp.bwc(FastPathFixture.put("x", 2)));
            assertSame(FastPathAbortedException.Reason.TENTATIVE_VERSION, aborted.reason());
            assertTrue(aborted.getMessage().contains(Long.toString(pending.txId())), aborted.getMessage());
            long committed = fx.fastPath.bwcOrRegular(name, FastPathFixture.put("x", 2));
            assertTrue(committed > pending.txId(), "committed as a regular transaction after the pending one began");
            TxnAbortedException lost = assertThrows(TxnAbortedException.class, () -> fx.client.commit(pending));
            assertSame(AbortReason.CONFLICT, lost.reason(), "first committer wins");
            assertEquals(2L, fx.readRegular(name, "x"));
        }
    }

    /**
     * Eight threads of brwc increments of one row, through the client's fallback: no update is lost, no version is
     * handed out twice, and (issue 12: running out of versions in a slot never stalls) a fast-path-only load crossing
     * several slots falls back to the regular path for fewer than 1% of its operations, counted by the client.
     */
    @Test
    void eightThreadsOfFastPathIncrementsOnOneRowLoseNoUpdateAndRarelyFallBack() throws Exception {
        TableName name = FastPathFixture.createTable("fp_inc8");
        int threads = 8;
        int perThread = 300; // 2,400 versions: the server's clock crosses at least two slots of 900
        FastPathClient client = new FastPathClient(fx.client); // counts this test's operations only
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        Set<Long> versions = ConcurrentHashMap.newKeySet();
        try (FastPathTable fp = fx.fastPathTable(name)) {
            fp.bwc(FastPathFixture.put("counter", 0)); // the region bootstraps before the load
            long firstSlot = TimestampLayout.slotStartOf(fp.br(FastPathFixture.get("counter")).version());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                done.add(pool.submit(() -> {
                    go.await();
                    for (int k = 0; k < perThread; k++) {
                        BrwcResult r = client.brwcOrRegular(name, Bytes.toBytes("counter"),
                                FastPathFunction.increment(FastPathFixture.FAMILY, FastPathFixture.QUALIFIER, 1));
                        assertTrue(r.applied());
                        assertTrue(versions.add(r.version()), "version handed out twice: " + r.version());
                    }
                    return perThread;
                }));
            }
            go.countDown();
            int total = 0;
            for (Future<Integer> f : done) {
                total += f.get(100, TimeUnit.SECONDS);
            }
            assertEquals((long) total, FastPathFixture.value(fp.brc(FastPathFixture.get("counter"))));
            assertEquals((long) total, fx.readRegular(name, "counter"));
            long lastSlot = TimestampLayout.slotStartOf(fp.br(FastPathFixture.get("counter")).version());
            assertTrue(lastSlot > firstSlot, "the load crossed slots");
            FastPathStats stats = client.stats();
            System.out.printf("FastPathConflictsIT: %d increments by 8 threads: %s (fallback ratio %.4f)%n", total,
                    stats, stats.abortRatio());
            assertEquals(total, stats.fastPathCommits() + stats.aborts(), stats.toString());
            assertTrue(stats.abortRatio() < 0.01, "more than 1% of a fast-path-only load fell back: " + stats);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A fast-path write that drew its version below a reader's start, but is not readable yet when the reader opens
     * its scanner, belongs to the reader's snapshot: the reader waits for it (HBase reads take no row lock).
     */
    @Test
    void aTransactionalReadWaitsForAFastPathWriteInFlightBelowItsStart() throws Exception {
        TableName name = FastPathFixture.createTable("fp_inflight");
        byte[] row = Bytes.toBytes("x");
        try (FastPathTable fp = fx.fastPathTable(name); TransactionalTable t = fx.table(name)) {
            fp.bwc(FastPathFixture.put("x", 1));
            CompletableFuture<Long> drawn = new CompletableFuture<>();
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> readerWaits = new CompletableFuture<>();
            FastPathHooks previous = FastPathHooks.install(new FastPathHooks() {
                @Override
                public void afterVersionDrawn(byte[] writtenRow, long version) {
                    if (Arrays.equals(row, writtenRow) && !drawn.isDone()) {
                        drawn.complete(version);
                        await(release);
                    }
                }

                @Override
                public void readerWaits(long readerStart) {
                    readerWaits.complete(readerStart);
                }
            });
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Long> writer = pool.submit(() -> fp.bwc(FastPathFixture.put("x", 2)));
                long version = drawn.get(30, TimeUnit.SECONDS);
                Transaction reader = fx.client.begin();
                assertTrue(version < reader.txId(), "the write belongs to the reader's snapshot");
                CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> {
                    try {
                        return FastPathFixture.value(t.get(reader, FastPathFixture.get("x")));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }, pool);
                Object first = CompletableFuture.anyOf(read, readerWaits).get(30, TimeUnit.SECONDS);
                assertFalse(read.isDone(), "the read returned " + first + " without waiting for the write at "
                        + version + " below its start " + reader.txId());
                release.countDown();
                assertEquals(version, writer.get(30, TimeUnit.SECONDS));
                assertEquals(2L, read.get(30, TimeUnit.SECONDS), "the reader sees the write in its snapshot");
                fx.client.commit(reader);
            } finally {
                release.countDown();
                FastPathHooks.install(previous);
                pool.shutdownNow();
            }
        }
    }

    /**
     * A regular transaction committed at c with its post-commit pending (the client died after its commit point):
     * fast-path reads find it through the commit table, and a fast-path write treats it as committed and goes above c.
     */
    @Test
    void aCommitWithoutCommitCellsIsReadAndOvertakenByTheFastPath() throws Exception {
        TableName name = FastPathFixture.createTable("fp_nocells");
        try (FastPathTable fp = fx.fastPathTable(name); TransactionalTable t = fx.table(name)) {
            Transaction crashed = fx.client.begin();
            t.put(crashed, FastPathFixture.put("x", 7));
            ProtocolHooks previous = ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterCommitPoint(long txId, long commitTs) throws IOException {
                    if (txId == crashed.txId()) {
                        throw new IOException("client crashed after its commit point (test)");
                    }
                }
            });
            try {
                assertThrows(IOException.class, () -> fx.client.commit(crashed, true));
            } finally {
                ProtocolHooks.install(previous);
            }
            assertEquals(7L, FastPathFixture.value(fp.brc(FastPathFixture.get("x"))),
                    "committed in the commit table only");
            long version = fp.bwc(FastPathFixture.put("x", 8));
            assertTrue(version > crashed.txId());
            assertEquals(8L, fx.readRegular(name, "x"), "the fast-path write is the newer one");
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the fast-path write");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
