package io.phoenixtxn.it.client;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.CommitTableAdmin;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit-table cleaner on the minicluster, with clients that "crash" right after their commit point
 * ({@link ProtocolHooks#afterCommitPoint} throws, so no commit cell is written and the entry stays):
 * an entry whose table was dropped neither stalls the entries behind it nor stays itself, and a client built on an
 * injected commit table cleans that table, not the one its configuration names.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CommitTableCleanerIT {
    private static final byte[] FAMILY = Bytes.toBytes("f");
    private static final byte[] QUALIFIER = Bytes.toBytes("v");

    @AfterEach
    void restoreHooks() {
        ProtocolHooks.install(ProtocolHooks.NONE);
    }

    @Test
    void anEntryOfADroppedTableDoesNotStallTheEntriesBehindItAndIsRetired() throws IOException {
        TableName doomed = createTable("CLEANER_DOOMED");
        TableName live = createTable("CLEANER_LIVE");
        try (TxnClient client = new TxnClient(hbase(), tm(), config())) {
            Transaction first = client.begin();
            Transaction second = client.begin();
            // The pass visits entries in row-key order: the dropped table's entry goes first, so a cleaner that
            // stops at the first entry it cannot complete never reaches the live one.
            if (Bytes.compareTo(HBaseCommitTable.rowKey(first.txId()), HBaseCommitTable.rowKey(second.txId())) > 0) {
                Transaction swap = first;
                first = second;
                second = swap;
            }
            Transaction ofDoomed = first;
            Transaction ofLive = second;
            crashAfterCommitPoint(client, doomed, ofDoomed, "d1");
            crashAfterCommitPoint(client, live, ofLive, "l1", "l2");
            drop(doomed);

            client.cleaner().cleanOnce(Math.max(ofDoomed.txId(), ofLive.txId()) + 1);

            assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(ofLive.txId()).state(),
                    "the live table's entry behind the dropped one is completed and retired");
            assertTrue(hasCommitCell(live, "l1", ofLive.txId()) && hasCommitCell(live, "l2", ofLive.txId()),
                    "the live table got its commit cells");
            assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(ofDoomed.txId()).state(),
                    "a dropped table's cells are gone with it: its entry is complete and retired");
            assertEquals(0, client.cleaner().failures(), "a dropped table is no failure");
        }
    }

    @Test
    void aClientOnAnInjectedCommitTableCleansThatTable() throws IOException {
        TableName data = createTable("CLEANER_INJECTED");
        TableName commits = TableName.valueOf(SharedStack.uniqueTable("CLEANER_COMMITS"));
        try (Admin admin = hbase().getAdmin()) {
            CommitTableAdmin.ensureExists(admin, commits, 1);
        }
        // The configuration names the shared commit table; the injected one is another table.
        try (TxnClient client = new TxnClient(hbase(), tm(), config(), new HBaseCommitTable(hbase(), commits))) {
            Transaction crashed = client.begin();
            Transaction younger = client.begin(); // in another bucket of the row key (consecutive ids cycle them)
            crashAfterCommitPoint(client, data, crashed, "i1");
            crashAfterCommitPoint(client, data, younger, "i2");

            assertEquals(1, client.cleaner().cleanOnce(younger.txId()), "the entry of the injected table, and"
                    + " not the one of a transaction that started at the bound");
            assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(crashed.txId()).state());
            assertTrue(hasCommitCell(data, "i1", crashed.txId()));
            assertEquals(CommitTable.Entry.State.COMMITTED, client.commitTable().lookup(younger.txId()).state());
            assertFalse(hasCommitCell(data, "i2", younger.txId()));

            assertEquals(1, client.cleaner().cleanOnce(Long.MAX_VALUE));
            assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(younger.txId()).state());
            assertTrue(hasCommitCell(data, "i2", younger.txId()));
            assertEquals(0, client.cleaner().failures());
        }
    }

    private static TxnClientConfig config() {
        // No background passes: each test runs exactly the passes it asserts on.
        return TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC)
                .withCleanerIntervalMs(0);
    }

    /** Writes {@code rows} in {@code tx} and commits it with a client that dies right after the commit point. */
    private static void crashAfterCommitPoint(TxnClient client, TableName name, Transaction tx, String... rows)
            throws IOException {
        try (TransactionalTable table = client.table(name)) {
            for (String row : rows) {
                table.put(tx, new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes("v" + row)));
            }
        }
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterCommitPoint(long txId, long commitTs) throws IOException {
                if (txId == tx.txId()) {
                    throw new IOException("simulated client crash after the commit point");
                }
            }
        });
        try {
            assertThrows(IOException.class, () -> client.commit(tx));
        } finally {
            ProtocolHooks.install(ProtocolHooks.NONE);
        }
        assertEquals(CommitTable.Entry.State.COMMITTED, client.commitTable().lookup(tx.txId()).state());
        for (String row : rows) {
            assertFalse(hasCommitCell(name, row, tx.txId()), "the crashed client wrote no commit cell");
        }
    }

    private static boolean hasCommitCell(TableName name, String row, long version) throws IOException {
        try (Table raw = hbase().getTable(name)) {
            return !raw.get(new Get(Bytes.toBytes(row)).addColumn(FAMILY, OnDiskLayout.commitQualifier(QUALIFIER))
                    .setTimestamp(version)).isEmpty();
        }
    }

    private static TableName createTable(String prefix) throws IOException {
        TableName name = TableName.valueOf(SharedStack.uniqueTable(prefix));
        try (Admin admin = hbase().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                            .setMaxVersions(Integer.MAX_VALUE).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build());
        }
        return name;
    }

    private static void drop(TableName name) throws IOException {
        try (Admin admin = hbase().getAdmin()) {
            admin.disableTable(name);
            admin.deleteTable(name);
        }
    }

    private static Connection hbase() throws IOException {
        return SharedStack.get().hbase().getConnection();
    }

    private static Supplier<TransactionManager> tm() {
        return () -> SharedStack.get().transactionManager();
    }
}
