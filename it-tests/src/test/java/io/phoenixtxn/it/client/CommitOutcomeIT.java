package io.phoenixtxn.it.client;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.TxnInDoubtException;
import io.phoenixtxn.it.ClientFixture;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.ClientFixture.read;
import static io.phoenixtxn.it.ClientFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a commit reports is what happened, whatever fails around the commit point: an applied commit-table write
 * whose answer is lost is never rolled back, a proven commit is never second-guessed, a failure after the commit
 * point is not reported as a failed commit, and a rollback from another thread never races a commit in progress.
 * Each fault is injected at an exact step ({@link FaultyCommitTable}, {@link ProtocolHooks}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CommitOutcomeIT {
    private static final long LATCH_SECONDS = 60;
    private static TxnClient reference;
    private static TableName name;
    private FaultyCommitTable faults;
    private TxnClient client;
    private TransactionalTable table;
    private TransactionalTable referenceTable;

    @BeforeAll
    static void createTable() throws IOException {
        reference = ClientFixture.client(TxnClientConfig.PostCommitMode.SYNC); // also creates the commit table
        name = ClientFixture.createTable("OUTCOME");
    }

    @AfterAll
    static void closeReference() {
        reference.close();
    }

    @BeforeEach
    void faultyClient() throws IOException {
        TxnClientConfig config = TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC)
                .withCleanerIntervalMs(0);
        faults = new FaultyCommitTable(new HBaseCommitTable(ClientFixture.hbase(),
                TableName.valueOf(config.commitTable())));
        client = new TxnClient(ClientFixture.hbase(), ClientFixture.tm(), config, faults);
        table = client.table(name);
        referenceTable = reference.table(name);
    }

    @AfterEach
    void close() throws IOException {
        ProtocolHooks.install(ProtocolHooks.NONE);
        table.close();
        referenceTable.close();
        client.close();
    }

    private void committed(String row, String value) throws IOException {
        Transaction setup = reference.begin();
        write(referenceTable, setup, row, value);
        reference.commit(setup);
    }

    private String readCommitted(String row) throws IOException {
        return read(referenceTable, reference.begin(), row);
    }

    /**
     * The commit-table write landed but its answer was lost, and the commit table was unreachable for the check that
     * followed: the outcome is unknown. Phoenix then calls abort(); deleting the tentative cells would destroy a
     * transaction the commit table says is committed.
     */
    @Test
    void aTransactionWhoseCommitOutcomeIsUnknownIsNeverRolledBack() throws Exception {
        committed("in-doubt", "v0");
        Transaction writer = client.begin();
        write(table, writer, "in-doubt", "v1");
        faults.onCommit.set(FaultyCommitTable.Fault.APPLY_THEN_FAIL);
        faults.onInvalidate.set(FaultyCommitTable.Fault.FAIL_BEFORE);
        TxnInDoubtException e = assertThrows(TxnInDoubtException.class, () -> client.commit(writer));
        assertTrue(e.getMessage().contains("It may have committed"), e.getMessage());
        assertEquals(Transaction.Status.IN_DOUBT, writer.status());
        client.abort(writer); // what Phoenix does after a failed commit
        assertEquals(CommitTable.Entry.State.COMMITTED, reference.commitTable().lookup(writer.txId()).state());
        assertEquals("v1", readCommitted("in-doubt"), "the commit that landed is visible, its cells intact");
    }

    /**
     * The commit-table write's answer was lost; our own invalidation then failed because a commit value is there:
     * committed, proven. The cleaner may complete and remove the entry right then; a second look-up would find it
     * gone and roll back a committed transaction.
     */
    @Test
    void aCommitProvenByALostInvalidationStaysCommittedWhenTheCleanerRemovesTheEntryMeanwhile() throws Exception {
        committed("proven", "v0");
        Transaction writer = client.begin();
        write(table, writer, "proven", "v1");
        faults.onCommit.set(FaultyCommitTable.Fault.APPLY_THEN_FAIL);
        faults.afterInvalidateAnswered = txId -> reference.cleaner().cleanOnce(Long.MAX_VALUE);
        client.commit(writer);
        assertEquals(Transaction.Status.COMMITTED, writer.status());
        assertEquals("v1", readCommitted("proven"));
    }

    /**
     * The commit-table write's answer was lost, and before our own invalidation the cleaner completed the commit
     * and removed its entry: the invalidation lands on an empty row and "wins", yet the transaction committed. Its
     * commit cells say so; the marker is stray.
     */
    @Test
    void anOwnInvalidationThatLandsAfterTheCleanerCompletedTheCommitIsStray() throws Exception {
        committed("completed", "v0");
        Transaction writer = client.begin();
        write(table, writer, "completed", "v1");
        faults.onCommit.set(FaultyCommitTable.Fault.APPLY_THEN_FAIL);
        faults.afterCommitApplied = txId -> reference.cleaner().cleanOnce(Long.MAX_VALUE);
        client.commit(writer);
        assertEquals(Transaction.Status.COMMITTED, writer.status());
        assertEquals("v1", readCommitted("completed"));
        assertEquals(CommitTable.Entry.State.ABSENT, reference.commitTable().lookup(writer.txId()).state(),
                "the stray invalid marker was removed");
    }

    /** A commit-table write that never landed, and an invalidation that did: known aborted, rolled back. */
    @Test
    void aCommitWriteThatFailedBeforeLandingAborts() throws Exception {
        committed("lost-write", "v0");
        Transaction writer = client.begin();
        write(table, writer, "lost-write", "v1");
        faults.onCommit.set(FaultyCommitTable.Fault.FAIL_BEFORE);
        TxnAbortedException e = assertThrows(TxnAbortedException.class, () -> client.commit(writer));
        assertEquals(AbortReason.INVALIDATED, e.reason());
        assertEquals(Transaction.Status.ABORTED, writer.status());
        assertEquals("v0", readCommitted("lost-write"));
        assertFalse(hasDataCell("lost-write", writer.txId()), "its tentative cell was removed");
    }

    /**
     * With synchronous post-commit, a failure after the commit point (here: removing the commit-table entry) must
     * not be reported: the transaction is committed and visible, and an application retrying a "failed" commit
     * would apply it twice.
     */
    @Test
    void aFailureAfterTheCommitPointIsNotAFailedCommit() throws Exception {
        committed("post", "v0");
        Transaction writer = client.begin();
        write(table, writer, "post", "v1");
        faults.onDelete.set(FaultyCommitTable.Fault.FAIL_BEFORE);
        client.commit(writer);
        assertEquals(Transaction.Status.COMMITTED, writer.status());
        assertEquals("v1", readCommitted("post"));
        assertEquals(CommitTable.Entry.State.COMMITTED, reference.commitTable().lookup(writer.txId()).state(),
                "the entry stays for readers and the cleaner");
    }

    /**
     * A rollback from another thread (a connection closed meanwhile) between the TM's decision and the commit point
     * must not delete the cells of a transaction that is about to commit.
     */
    @Test
    void aRollbackFromAnotherThreadNeverRacesACommitInProgress() throws Exception {
        committed("closing", "v0");
        Transaction writer = client.begin();
        write(table, writer, "closing", "v1");
        CountDownLatch decided = new CountDownLatch(1);
        CountDownLatch rolledBack = new CountDownLatch(1);
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterTmDecision(long txId, long commitTs) {
                if (txId == writer.txId()) {
                    decided.countDown();
                    await(rolledBack);
                }
            }
        });
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
            try {
                client.commit(writer);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        await(decided);
        client.abort(writer);
        rolledBack.countDown();
        commit.get(LATCH_SECONDS, TimeUnit.SECONDS);
        assertEquals(Transaction.Status.COMMITTED, writer.status());
        assertEquals("v1", readCommitted("closing"));
        // And a transaction rolled back first can no longer commit.
        Transaction other = client.begin();
        write(table, other, "closing", "v2");
        client.abort(other);
        assertThrows(IllegalStateException.class, () -> client.commit(other));
        assertEquals("v1", readCommitted("closing"));
    }

    /**
     * A table that skips the WAL: a region-server crash would lose tentative cells behind a commit-table entry that
     * survives (a committed transaction with missing writes), or commit cells whose entry is already deleted
     * (committed data read as aborted). Every transactional put must reach the region as SYNC_WAL.
     */
    @Test
    void transactionalWritesAreWalSyncedWhateverTheTableSays() throws Exception {
        TableName skipWal = TableName.valueOf(SharedStack.uniqueTable("SKIPWAL"));
        try (org.apache.hadoop.hbase.client.Admin admin = ClientFixture.hbase().getAdmin()) {
            admin.createTable(org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(skipWal)
                    .setColumnFamily(org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder
                            .newBuilder(ClientFixture.FAMILY).setMaxVersions(Integer.MAX_VALUE).build())
                    .setDurability(org.apache.hadoop.hbase.client.Durability.SKIP_WAL)
                    .setCoprocessor(io.phoenixtxn.client.ObserverNames.SNAPSHOT_READ_OBSERVER)
                    .setCoprocessor(DurabilityRecorder.class.getName()).build());
        }
        DurabilityRecorder.SEEN.clear();
        try (TransactionalTable t = reference.table(skipWal)) {
            Transaction writer = reference.begin();
            write(t, writer, "r", "v1");
            reference.commit(writer); // synchronous post-commit: the commit cell is written before this returns
            assertEquals("v1", read(t, reference.begin(), "r"));
        }
        assertEquals(java.util.List.of(org.apache.hadoop.hbase.client.Durability.SYNC_WAL,
                org.apache.hadoop.hbase.client.Durability.SYNC_WAL), java.util.List.copyOf(DurabilityRecorder.SEEN),
                "the tentative put and the commit-cell put");
    }

    private boolean hasDataCell(String row, long version) throws IOException {
        try (Table raw = ClientFixture.hbase().getTable(name)) {
            return !raw.get(new Get(Bytes.toBytes(row)).addColumn(ClientFixture.FAMILY, ClientFixture.QUALIFIER)
                    .setTimestamp(version)).isEmpty();
        }
    }

    static boolean hasCommitCell(TableName table, String row, long version) throws IOException {
        try (Table raw = ClientFixture.hbase().getTable(table)) {
            return !raw.get(new Get(Bytes.toBytes(row)).addColumn(ClientFixture.FAMILY,
                    OnDiskLayout.commitQualifier(ClientFixture.QUALIFIER)).setTimestamp(version)).isEmpty();
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
