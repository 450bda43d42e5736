package io.phoenixtxn.client;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.metrics.MetricsSnapshot;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's outcome counters that need a fault to move, each provoked on the {@link TxnClient}'s seams with a real
 * in-memory TM ({@link TransactionManagerCore}): {@code InDoubt} (the commit-table write and the check after it both
 * fail), {@code TmUnavailable} (the TM does not answer the commit), and {@code AbortsCommitPointTooLate} (the commit
 * stalls past {@code phoenix.txn.commit.point.timeout.ms} between the TM's decision and its commit point, held by a
 * {@link ProtocolHooks} hook). The client's HBase connection records the commit cells it writes and the tentative
 * cells it removes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TxnClientOutcomeMetricsTest {
    private static final long TABLE = 0xA;
    private static final TableName T = TableName.valueOf("T");
    private static final byte[] F = Bytes.toBytes("f");

    private final TransactionManagerCore core = TransactionManagerCore.startInMemory(TmConfig.defaults()
            .withConflictEntries(1 << 10));
    private final TxnClientMetrics metrics = new TxnClientMetrics(60);
    private TxnClient client;

    @AfterEach
    void close() {
        ProtocolHooks.install(ProtocolHooks.NONE);
        if (client != null) {
            client.close();
        }
        core.close();
    }

    /** Table calls the client made through its connection, as "method table", in order. */
    private final List<String> tableCalls = new CopyOnWriteArrayList<>();

    /**
     * A connection whose tables accept the client's puts and deletes and record them (a get finds nothing); any
     * other call fails.
     */
    private Connection recordingHBase() {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getTable") && args.length == 1) {
                        TableName name = (TableName) args[0];
                        return Proxy.newProxyInstance(Table.class.getClassLoader(), new Class<?>[] {Table.class},
                                (table, call, callArgs) -> {
                                    switch (call.getName()) {
                                        case "put":
                                        case "delete":
                                            tableCalls.add(call.getName() + " " + name.getNameAsString());
                                            return null;
                                        case "get":
                                            return Result.EMPTY_RESULT;
                                        case "close":
                                            return null;
                                        default:
                                            throw new UnsupportedOperationException(call.getName());
                                    }
                                });
                    }
                    throw new UnsupportedOperationException("not used by these tests: " + method.getName());
                });
    }

    private TxnClient client(Supplier<TransactionManager> tm, CommitTable commitTable, TxnClientConfig config) {
        client = new TxnClient(recordingHBase(), tm, config.withCleanerIntervalMs(0), commitTable, metrics);
        return client;
    }

    private static TxnClientConfig config() {
        return TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC);
    }

    /** A transaction that wrote one row (its write set, as a {@link TransactionalTable} records it). */
    private static Transaction writing(TxnClient client, long row) throws IOException {
        Transaction tx = client.begin();
        tx.writeSet().addRow(row);
        tx.writeSet().addTable(TABLE);
        tx.writeSet().addCell(T, new WrittenCell(Bytes.toBytes(row), F, F, tx.txId()));
        return tx;
    }

    @Test
    void aCommitWhoseOutcomeCannotBeLearnedIsCountedInDoubt() throws IOException {
        InMemoryCommitTable entries = new InMemoryCommitTable();
        FailingCommitTable unreachable = new FailingCommitTable(entries);
        TxnClient c = client(() -> core, unreachable, config());
        Transaction ok = writing(c, 1);
        c.commit(ok);
        assertEquals(1, metrics.commits(), "the seam commits while the commit table answers");
        assertEquals(List.of("put T"), tableCalls, "its commit cells");

        unreachable.failing = true; // the commit point's write and the invalidation that would settle it
        Transaction tx = writing(c, 2);
        TxnInDoubtException e = assertThrows(TxnInDoubtException.class, () -> c.commit(tx));
        assertEquals(tx.txId(), e.txId());
        assertEquals(Transaction.Status.IN_DOUBT, tx.status());
        assertEquals(1, metrics.inDoubtCount());
        assertEquals(0, metrics.tmUnavailableCount());
        assertEquals(1, metrics.commits(), "an outcome in doubt is not counted committed");
        Map<String, Number> seen = MetricsSnapshot.of(metrics);
        assertEquals(1L, seen.get("InDoubt"));
        assertEquals(0L, seen.get("TmUnavailable"));
        assertEquals(0L, seen.get("AbortsInvalidated"), "not counted as an abort either");
        assertEquals(List.of("put T"), tableCalls, "nothing of the transaction in doubt is rolled back");
    }

    @Test
    void aCommitTheTmDoesNotAnswerIsCountedTmUnavailable() throws IOException {
        InMemoryCommitTable entries = new InMemoryCommitTable();
        TransactionManager deadAtCommit = deadAtCommit(core);
        TxnClient c = client(() -> deadAtCommit, entries, config());
        Transaction tx = writing(c, 3);
        TmException e = assertThrows(TmException.class, () -> c.commit(tx));
        assertTrue(e.getMessage().contains("rolled back"), e.getMessage());
        assertEquals(Transaction.Status.ABORTED, tx.status());
        assertEquals(CommitTable.Entry.State.ABSENT, entries.lookup(tx.txId()).state(), "no commit point written");
        assertEquals(List.of("delete T"), tableCalls, "its tentative cells are removed");
        assertEquals(1, metrics.tmUnavailableCount());
        assertEquals(0, metrics.inDoubtCount());
        assertEquals(0, metrics.commits());
        Map<String, Number> seen = MetricsSnapshot.of(metrics);
        assertEquals(1L, seen.get("TmUnavailable"));
        assertEquals(0L, seen.get("InDoubt"));
    }

    /**
     * The hook holds the commit between the TM's decision and the commit point for longer than the commit-point
     * timeout (it returns only once that much time has passed): the client must not write the commit point.
     */
    @Test
    void aCommitThatStallsPastTheCommitPointTimeoutIsCountedCommitPointTooLate() throws IOException {
        long timeoutMs = 50;
        InMemoryCommitTable entries = new InMemoryCommitTable();
        TxnClient c = client(() -> core, entries, config().withCommitPointTimeoutMs(timeoutMs));
        Transaction prompt = writing(c, 4);
        c.commit(prompt);
        assertEquals(1, metrics.commits(), "a commit that does not stall reaches its commit point in time");

        Transaction stalled = writing(c, 5);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == stalled.txId()) {
                    pauseAtLeast(2 * timeoutMs);
                }
            }
        });
        TxnAbortedException e = assertThrows(TxnAbortedException.class, () -> c.commit(stalled));
        assertSame(AbortReason.COMMIT_POINT_TOO_LATE, e.reason());
        assertEquals(Transaction.Status.ABORTED, stalled.status());
        assertEquals(CommitTable.Entry.State.ABSENT, entries.lookup(stalled.txId()).state(),
                "the late commit point was never written");
        assertEquals(List.of("put T", "delete T"), tableCalls, "the prompt one's commit cells; the late one rolled back");
        assertEquals(1, metrics.aborts(AbortReason.COMMIT_POINT_TOO_LATE));
        assertEquals(1, metrics.commits());
        Map<String, Number> seen = MetricsSnapshot.of(metrics);
        assertEquals(1L, seen.get("AbortsCommitPointTooLate"));
        assertEquals(0L, seen.get("AbortsInvalidated"));
    }

    /** Returns once at least {@code millis} have passed on the monotonic clock (the condition, not a guess). */
    private static void pauseAtLeast(long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The TM for everything but the commit, which finds it unreachable. */
    private static TransactionManager deadAtCommit(TransactionManager tm) {
        return (TransactionManager) Proxy.newProxyInstance(TransactionManager.class.getClassLoader(),
                new Class<?>[] {TransactionManager.class}, (proxy, method, args) -> {
                    if (method.getName().equals("commit")) {
                        throw new TmException("TM unreachable (test)");
                    }
                    try {
                        return method.invoke(tm, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The in-memory commit table, unreachable while {@link #failing}: every call then fails. */
    private static final class FailingCommitTable implements CommitTable {
        private final CommitTable delegate;
        volatile boolean failing;

        FailingCommitTable(CommitTable delegate) {
            this.delegate = delegate;
        }

        private void check() throws IOException {
            if (failing) {
                throw new IOException("commit table unreachable (test)");
            }
        }

        @Override
        public boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
            check();
            return delegate.tryCommit(txId, commitTs, recoveryRecord);
        }

        @Override
        public byte[] recoveryRecord(long txId) throws IOException {
            check();
            return delegate.recoveryRecord(txId);
        }

        @Override
        public Entry lookup(long txId) throws IOException {
            check();
            return delegate.lookup(txId);
        }

        @Override
        public boolean tryInvalidate(long txId) throws IOException {
            check();
            return delegate.tryInvalidate(txId);
        }

        @Override
        public void delete(long txId) throws IOException {
            check();
            delegate.delete(txId);
        }

        @Override
        public Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException {
            check();
            return delegate.committedBefore(txIdBelow);
        }
    }
}
