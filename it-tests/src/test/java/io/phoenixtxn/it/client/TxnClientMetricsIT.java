package io.phoenixtxn.it.client;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.CommitTableAdmin;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.TxnClientMetrics;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.metrics.MetricsSnapshot;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import static io.phoenixtxn.it.client.ClientTables.read;
import static io.phoenixtxn.it.client.ClientTables.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional client's metrics on the shared minicluster, each provoked by what it counts: commits and their
 * latency, the commit-point write and its latency, the asynchronous post-commit backlog (held by a commit-table
 * delete the test blocks), and aborts by reason (a write-write conflict, a reader's force-abort, a rollback).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TxnClientMetricsIT {
    private static final long LATCH_SECONDS = 60;

    private TxnClientMetrics metrics;
    private GatedCommitTable commitTable;
    private TxnClient client;
    private TransactionalTable table;

    /** The real commit table; deletes (the post-commit's last step) wait while the gate is closed. */
    private static final class GatedCommitTable implements CommitTable {
        private final CommitTable delegate;
        volatile CountDownLatch gate = new CountDownLatch(0);

        GatedCommitTable(CommitTable delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
            return delegate.tryCommit(txId, commitTs, recoveryRecord);
        }

        @Override
        public byte[] recoveryRecord(long txId) throws IOException {
            return delegate.recoveryRecord(txId);
        }

        @Override
        public Entry lookup(long txId) throws IOException {
            return delegate.lookup(txId);
        }

        @Override
        public boolean tryInvalidate(long txId) throws IOException {
            return delegate.tryInvalidate(txId);
        }

        @Override
        public void delete(long txId) throws IOException {
            try {
                gate.await(LATCH_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            delegate.delete(txId);
        }

        @Override
        public Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException {
            return delegate.committedBefore(txIdBelow);
        }
    }

    @BeforeEach
    void client() throws IOException {
        TxnClientConfig config = TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.ASYNC)
                .withCleanerIntervalMs(0);
        metrics = new TxnClientMetrics(1);
        try (Admin admin = ClientTables.hbase().getAdmin()) {
            CommitTableAdmin.ensureExists(admin, TableName.valueOf(config.commitTable()), config.commitTableRegions());
        }
        commitTable = new GatedCommitTable(new HBaseCommitTable(ClientTables.hbase(),
                TableName.valueOf(config.commitTable())));
        client = new TxnClient(ClientTables.hbase(), () -> SharedStack.get().transactionManager(), config,
                commitTable, metrics);
        table = client.table(ClientTables.createTable("METRICS", family -> family.setMaxVersions(Integer.MAX_VALUE)));
    }

    @AfterEach
    void close() throws IOException {
        ProtocolHooks.install(ProtocolHooks.NONE);
        commitTable.gate.countDown();
        table.close();
        client.close();
    }

    @Test
    void commitsTheirLatencyAndThePostCommitBacklogAreCounted() throws Exception {
        commitTable.gate = new CountDownLatch(1);
        Transaction tx = client.begin();
        write(table, tx, "a", "1");
        client.commit(tx); // returns at the commit point; the post-commit waits at the gate
        assertEquals(1, metrics.commits());
        assertEquals(1, metrics.commitTableWrites());
        assertEquals(1, metrics.postCommitBacklog(), "one post-commit held at its commit-table delete");
        assertEquals(1L, MetricsSnapshot.of(metrics).get("PostCommitBacklog"));
        commitTable.gate.countDown();
        await(metrics::postCommitBacklog, 0, "the backlog to drain");
        assertEquals(0, metrics.postCommitFailures());

        // The latency quantiles publish each (1 s) window when it rolls over.
        awaitSnapshot("CommitLatencyNumCommits");
        awaitSnapshot("CommitTableWriteLatencyNumWrites");
        Map<String, Number> seen = MetricsSnapshot.of(metrics);
        assertTrue(seen.containsKey("CommitLatency99thPercentileMicros"), seen.toString());
    }

    @Test
    void abortsAreCountedByReason() throws Exception {
        Transaction loser = client.begin();
        Transaction winner = client.begin();
        write(table, loser, "b", "loser");
        write(table, winner, "b", "winner");
        client.commit(winner);
        TxnAbortedException conflict = assertThrows(TxnAbortedException.class, () -> client.commit(loser));
        assertEquals(AbortReason.CONFLICT, conflict.reason());
        assertEquals(1, metrics.aborts(AbortReason.CONFLICT));

        Transaction rolledBack = client.begin();
        write(table, rolledBack, "c", "never");
        client.abort(rolledBack);
        assertEquals(1, metrics.aborts(AbortReason.CLIENT_ROLLBACK));

        // A writer stalled between the TM's decision and its commit point is force-aborted by a reader that started
        // after the decision: its commit then fails INVALIDATED.
        Transaction writer = client.begin();
        write(table, writer, "d", "w");
        CountDownLatch decided = new CountDownLatch(1);
        CountDownLatch readerDone = new CountDownLatch(1);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == writer.txId()) {
                    decided.countDown();
                    awaitLatch(readerDone);
                }
            }
        });
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
            try {
                client.commit(writer);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        });
        assertTrue(decided.await(LATCH_SECONDS, TimeUnit.SECONDS));
        Transaction reader = client.begin();
        assertEquals(null, read(table, reader, "d"));
        readerDone.countDown();
        ExecutionException e = assertThrows(ExecutionException.class, () -> commit.get(LATCH_SECONDS, TimeUnit.SECONDS));
        assertEquals(AbortReason.INVALIDATED, assertInstanceOf(TxnAbortedException.class, e.getCause())
                .reason());
        assertEquals(1, metrics.aborts(AbortReason.INVALIDATED));

        Map<String, Number> seen = MetricsSnapshot.of(metrics);
        assertEquals(1L, seen.get("AbortsConflict"));
        assertEquals(1L, seen.get("AbortsClientRollback"));
        assertEquals(1L, seen.get("AbortsInvalidated"));
        assertEquals(0L, seen.get("AbortsFence"));
        assertEquals(1L, seen.get("Commits"), "only the winner committed");
        client.abort(reader); // read-only: ends it at the TM
    }

    private void awaitSnapshot(String name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<String, Number> seen = MetricsSnapshot.of(metrics);
        while (seen.getOrDefault(name, 0L).longValue() < 1) {
            assertTrue(System.nanoTime() < deadline, name + " never published a sample: " + seen);
            TimeUnit.MILLISECONDS.sleep(20);
            seen = MetricsSnapshot.of(metrics);
        }
    }

    private static void await(LongSupplier value, long expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LATCH_SECONDS);
        while (value.getAsLong() != expected) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(LATCH_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
