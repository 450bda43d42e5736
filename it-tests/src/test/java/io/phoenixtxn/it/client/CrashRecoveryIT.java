package io.phoenixtxn.it.client;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.coprocessor.CommitCellHealer;
import io.phoenixtxn.it.ClientFixture;
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
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.ClientFixture.read;
import static io.phoenixtxn.it.ClientFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients that die after their commit point (killed between the commit-table write and the commit cells): readers
 * see the commit at once through the commit table and heal the commit cells they read; the commit-table cleaner
 * finishes the whole post-commit from the recovery record and removes the entry. No half-visible transaction.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CrashRecoveryIT {
    private static TxnClient client;
    private static TableName name;
    private static TransactionalTable table;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientFixture.client(TxnClientConfig.PostCommitMode.SYNC);
        name = ClientFixture.createTable("CRASH");
        table = client.table(name);
    }

    @AfterAll
    static void tearDown() throws IOException {
        table.close();
        client.close();
    }

    @AfterEach
    void restoreHooks() {
        ProtocolHooks.install(ProtocolHooks.NONE);
    }

    /** Commits x and y in one transaction whose client "dies" right after the commit point. */
    private Transaction crashAfterCommitPoint(String x, String y) throws IOException {
        Transaction writer = client.begin();
        write(table, writer, x, "vx");
        write(table, writer, y, "vy");
        ProtocolHooks.install(new ProtocolHooks() {
            @Override
            public void afterCommitPoint(long txId, long commitTs) throws IOException {
                if (txId == writer.txId()) {
                    throw new IOException("simulated client crash after the commit point");
                }
            }
        });
        assertThrows(IOException.class, () -> client.commit(writer));
        ProtocolHooks.install(ProtocolHooks.NONE);
        assertFalse(hasCommitCell(x, writer.txId()));
        assertFalse(hasCommitCell(y, writer.txId()));
        return writer;
    }

    @Test
    void cleanerCompletesThePostCommitOfACrashedClient() throws IOException {
        Transaction writer = crashAfterCommitPoint("c1x", "c1y");
        assertTrue(client.cleaner().cleanOnce(Long.MAX_VALUE) >= 1);
        assertTrue(hasCommitCell("c1x", writer.txId()));
        assertTrue(hasCommitCell("c1y", writer.txId()));
        assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(writer.txId()).state(),
                "the entry is retired once every commit cell is written");
        Transaction reader = client.begin();
        assertEquals("vx", read(table, reader, "c1x"));
        assertEquals("vy", read(table, reader, "c1y"));
    }

    @Test
    void readersSeeTheCommitAtOnceAndHealTheCellsTheyRead() throws Exception {
        Transaction writer = crashAfterCommitPoint("c2x", "c2y");
        Transaction reader = client.begin();
        assertEquals("vx", read(table, reader, "c2x"), "visible through the commit table");
        assertEquals("vy", read(table, reader, "c2y"), "all or nothing: the whole transaction is visible");
        assertTrue(CommitCellHealer.awaitQueued(30, TimeUnit.SECONDS));
        assertTrue(hasCommitCell("c2x", writer.txId()), "the reader healed the commit cell it resolved");
        assertEquals(CommitTable.Entry.State.COMMITTED, client.commitTable().lookup(writer.txId()).state(),
                "readers heal cells but leave the entry to the cleaner, which knows every cell");
    }

    private boolean hasCommitCell(String row, long version) throws IOException {
        try (Table raw = ClientFixture.hbase().getTable(name)) {
            return !raw.get(new Get(Bytes.toBytes(row)).addColumn(ClientFixture.FAMILY,
                    OnDiskLayout.commitQualifier(ClientFixture.QUALIFIER)).setTimestamp(version)).isEmpty();
        }
    }
}
