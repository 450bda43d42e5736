package io.phoenixtxn.it.client;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.ClientFixture;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.ClientFixture.read;
import static io.phoenixtxn.it.ClientFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol races of VLDB'18 sec. 3, each forced deterministically with {@link ProtocolHooks} latches (the
 * region observer runs in this JVM, so a hook can stall a reader inside the region server).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClientProtocolRacesIT {
    private static final long LATCH_SECONDS = 60;
    private static TxnClient client;
    private static TableName name;
    private TransactionalTable table;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientFixture.client(TxnClientConfig.PostCommitMode.SYNC);
        name = ClientFixture.createTable("RACES");
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @AfterEach
    void restoreHooks() throws IOException {
        ProtocolHooks.install(ProtocolHooks.NONE);
        if (table != null) {
            table.close();
        }
    }

    private String committedRow(String row, String value) throws IOException {
        table = client.table(name);
        Transaction setup = client.begin();
        write(table, setup, row, value);
        client.commit(setup);
        return row;
    }

    @Test
    void readerForceAbortsAPendingWriterWhoseCommitThenFails() throws Exception {
        String row = committedRow("r1", "v0");
        Transaction writer = client.begin();
        write(table, writer, row, "v1");
        CountDownLatch decided = new CountDownLatch(1);
        CountDownLatch readerDone = new CountDownLatch(1);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == writer.txId()) {
                    decided.countDown();
                    await(readerDone);
                }
            }
        });
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> commitUnchecked(writer));
        await(decided);
        // The reader starts after the TM decided: the writer's commit timestamp is below the reader's start, so the
        // reader must settle the pending version. The writer is stuck before its commit point: it gets invalidated.
        Transaction reader = client.begin();
        assertEquals("v0", read(table, reader, row));
        readerDone.countDown();
        ExecutionException e = assertThrows(ExecutionException.class, () -> commit.get(LATCH_SECONDS, TimeUnit.SECONDS));
        TxnAbortedException aborted = assertInstanceOf(TxnAbortedException.class, e.getCause().getCause());
        assertEquals(AbortReason.INVALIDATED, aborted.reason());
        assertEquals(Transaction.Status.ABORTED, writer.status());
        assertEquals("v0", read(table, client.begin(), row), "nothing of the invalidated writer is visible");
        assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(writer.txId()).state(),
                "the invalidated writer removed its marker");
    }

    @Test
    void crashAfterTheCommitPointLeavesACommittedTransactionThatReadersResolve() throws Exception {
        String row = committedRow("r2", "v0");
        Transaction writer = client.begin();
        write(table, writer, row, "v1");
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterCommitPoint(long txId, long commitTs) throws IOException {
                if (txId == writer.txId()) {
                    throw new IOException("simulated client crash after the commit point");
                }
            }
        });
        IOException crash = assertThrows(IOException.class, () -> client.commit(writer));
        assertTrue(crash.getMessage().contains("simulated"));
        assertFalse(hasCommitCell(row, writer.txId()), "the crashed client wrote no commit cell");
        assertEquals(CommitTable.Entry.State.COMMITTED, client.commitTable().lookup(writer.txId()).state());
        assertEquals("v1", read(table, client.begin(), row), "readers resolve the commit through the commit table");
    }

    @Test
    void readerThatStallsUntilTheWriterCommittedAndCleanedUpSeesTheCommit() throws Exception {
        String row = committedRow("r3", "v0");
        Transaction writer = client.begin();
        write(table, writer, row, "v1");
        CountDownLatch decided = new CountDownLatch(1);
        CountDownLatch readerAtInvalidation = new CountDownLatch(1);
        CountDownLatch writerCleanedUp = new CountDownLatch(1);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == writer.txId()) {
                    decided.countDown();
                    await(readerAtInvalidation);
                }
            }

            @Override
            public void beforeInvalidate(long writerTxId) {
                if (writerTxId == writer.txId()) {
                    readerAtInvalidation.countDown();
                    await(writerCleanedUp);
                }
            }
        });
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
            commitUnchecked(writer); // SYNC post-commit: commit cells written, entry deleted before it returns
            writerCleanedUp.countDown();
        });
        await(decided);
        Transaction reader = client.begin();
        // The reader finds the version pending, waits, and is about to force-abort when the writer commits and
        // removes its entry; the invalid marker then lands on an empty row and must not win over the commit cell.
        assertEquals("v1", read(table, reader, row));
        commit.get(LATCH_SECONDS, TimeUnit.SECONDS);
        assertEquals(Transaction.Status.COMMITTED, writer.status());
        assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(writer.txId()).state(),
                "the reader removed its stray invalid marker");
    }

    @Test
    void readerWaitingOnAPendingWriterThatReachesItsCommitPointDoesNotAbortIt() throws Exception {
        String row = committedRow("r4", "v0");
        Transaction writer = client.begin();
        write(table, writer, row, "v1");
        CountDownLatch decided = new CountDownLatch(1);
        CountDownLatch readerSawPending = new CountDownLatch(1);
        CountDownLatch writerCommitted = new CountDownLatch(1);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == writer.txId()) {
                    decided.countDown();
                    await(readerSawPending);
                }
            }

            @Override
            public void afterCommitPoint(long txId, long commitTs) {
                if (txId == writer.txId()) {
                    writerCommitted.countDown();
                }
            }

            @Override
            public void onPendingVersion(long writerTxId) {
                if (writerTxId == writer.txId()) {
                    readerSawPending.countDown();
                    await(writerCommitted);
                }
            }
        });
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> commitUnchecked(writer));
        await(decided);
        Transaction reader = client.begin();
        assertEquals("v1", read(table, reader, row), "the reader waited and saw the commit instead of aborting it");
        commit.get(LATCH_SECONDS, TimeUnit.SECONDS);
        assertEquals(Transaction.Status.COMMITTED, writer.status());
    }

    private boolean hasCommitCell(String row, long version) throws IOException {
        try (Table raw = ClientFixture.hbase().getTable(name)) {
            return !raw.get(new Get(Bytes.toBytes(row)).addColumn(ClientFixture.FAMILY,
                    OnDiskLayout.commitQualifier(ClientFixture.QUALIFIER)).setTimestamp(version)).isEmpty();
        }
    }

    private static void commitUnchecked(Transaction tx) {
        try {
            client.commit(tx);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(LATCH_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in " + LATCH_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
