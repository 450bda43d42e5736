package io.phoenixtxn.it.client;

import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.snapshot.SnapshotCodec;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.client.ClientTables.FAMILY;
import static io.phoenixtxn.it.client.ClientTables.QUALIFIER;
import static io.phoenixtxn.it.client.ClientTables.commitValue;
import static io.phoenixtxn.it.client.ClientTables.read;
import static io.phoenixtxn.it.client.ClientTables.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that commits to another commit table than the region servers resolve against would break snapshot
 * isolation: its commits, until their commit cells land, read as not committed (and get force-aborted in the wrong
 * table). The region server refuses such a client's reads and tentative writes, naming both tables and the key.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CommitTableMismatchIT {
    private static final String SERVER_TABLE = HBaseCommitTable.DEFAULT_NAME;
    private static String clientTable;
    private static TxnClient matching;
    private static Connection otherConnection;
    private static TxnClient mismatched;
    private static TableName name;

    @BeforeAll
    static void setUp() throws IOException {
        matching = ClientTables.client();
        clientTable = SharedStack.uniqueTable("OTHER_COMMIT_TABLE");
        Configuration conf = new Configuration(ClientTables.hbase().getConfiguration());
        conf.set(TxnClientConfig.COMMIT_TABLE, clientTable);
        otherConnection = ConnectionFactory.createConnection(conf);
        mismatched = new TxnClient(otherConnection, () -> SharedStack.get().transactionManager(),
                TxnClientConfig.from(conf::get).withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC));
        name = ClientTables.createTable("MISMATCH", f -> f.setMaxVersions(Integer.MAX_VALUE));
        try (TransactionalTable table = matching.table(name)) {
            commitValue(matching, table, "r", "v0");
        }
    }

    @AfterAll
    static void tearDown() throws IOException {
        mismatched.close();
        otherConnection.close();
        matching.close();
    }

    @Test
    void aWriterCommittingToAnotherCommitTableIsRefusedBeforeItsTentativeCellLands() throws IOException {
        try (TransactionalTable table = mismatched.table(name)) {
            Transaction writer = mismatched.begin();
            assertRefusedNamingBothTables(() -> write(table, writer, "r", "v1"));
            mismatched.abort(writer);
        }
        try (Table raw = ClientTables.hbase().getTable(name)) {
            List<Cell> cells = raw.get(new Get(Bytes.toBytes("r")).addColumn(FAMILY, QUALIFIER).readAllVersions())
                    .listCells();
            assertEquals(1, cells.size(), "only the committed v0 is stored: " + cells);
        }
        try (TransactionalTable table = matching.table(name)) {
            assertEquals("v0", read(table, matching.begin(), "r"));
        }
    }

    @Test
    void aReaderCommittingToAnotherCommitTableIsRefused() throws IOException {
        try (TransactionalTable table = mismatched.table(name)) {
            Transaction reader = mismatched.begin();
            assertRefusedNamingBothTables(() -> read(table, reader, "r"));
            assertRefusedNamingBothTables(() -> {
                try (ResultScanner scanner = table.getScanner(reader, new Scan())) {
                    scanner.next();
                }
            });
        }
    }

    @Test
    void aClientOfTheRegionServersCommitTableIsServed() throws IOException {
        try (TransactionalTable table = matching.table(name)) {
            Transaction tx = matching.begin();
            write(table, tx, "s", "mine");
            assertEquals("mine", read(table, tx, "s"));
            assertEquals("v0", read(table, tx, "r"));
            matching.abort(tx);
        }
    }

    /** A snapshot read that does not name its commit table (older clients) is served as before. */
    @Test
    void aSnapshotReadThatNamesNoCommitTableIsServed() throws IOException {
        Transaction reader = matching.begin();
        Get get = new Get(Bytes.toBytes("r")).addColumn(FAMILY, QUALIFIER);
        get.setAttribute(SnapshotAttributes.SNAPSHOT, SnapshotCodec.encode(reader.snapshot()));
        try (Table raw = ClientTables.hbase().getTable(name)) {
            Result r = raw.get(get);
            assertEquals("v0", ClientTables.valueOf(r));
        }
    }

    private static void assertRefusedNamingBothTables(Executable call) {
        IOException refused = assertThrows(IOException.class, call);
        String messages = messages(refused);
        assertTrue(messages.contains("DoNotRetryIOException"), messages);
        assertTrue(messages.contains("'" + clientTable + "'"), "names the client's table: " + messages);
        assertTrue(messages.contains("'" + SERVER_TABLE + "'"), "names the region server's table: " + messages);
        assertTrue(messages.contains(TxnClientConfig.COMMIT_TABLE), "names the key to fix: " + messages);
    }

    private static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
        }
        return all.toString();
    }
}
