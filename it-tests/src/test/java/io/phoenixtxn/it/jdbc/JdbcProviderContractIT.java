package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.phoenix.PhoenixTxnProvider;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.phoenix.coprocessorclient.MetaDataProtocol;
import org.apache.phoenix.schema.PColumn;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.types.PLong;
import org.apache.phoenix.schema.types.PVarchar;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.transaction.PhoenixTransactionContext.PhoenixVisibilityLevel;
import org.apache.phoenix.transaction.TransactionFactory;
import org.apache.phoenix.util.EncodedColumnsUtil;
import org.apache.phoenix.util.PhoenixRuntime;
import org.apache.phoenix.util.SchemaUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.jdbc.Sql.longOf;
import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.stringOrNull;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parts of Phoenix's transaction SPI that SQL alone does not reach: the encoded transaction a region server
 * decodes, sub-task contexts and join, and abort when nothing runs. Contexts come from real connections.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JdbcProviderContractIT {
    private static final String COLUMNS = "K BIGINT PRIMARY KEY, V VARCHAR";

    @BeforeAll
    static void stack() {
        SharedStack.get();
    }

    @Test
    void encodedTransactionEndsWithTheProviderCodeAndDecodesWithoutATm() throws Exception {
        String t = Sql.createTable("ENCODE", COLUMNS);
        try (Connection c = open(false); Connection other = open(false)) {
            assertEquals(0, longOf(other, "SELECT COUNT(*) FROM " + t));
            update(c, "UPSERT INTO " + t + " VALUES (1, 'mine')");
            assertEquals("mine", stringOrNull(c, "SELECT V FROM " + t + " WHERE K = 1"));
            PhoenixTransactionContext ctx = Sql.context(c);
            ctx.checkpoint(true); // read pointer, write pointer and level all differ from a fresh transaction's

            byte[] encoded = ctx.encodeTransaction();
            assertEquals(2, encoded[encoded.length - 1], "the last byte is the provider code");
            assertEquals(TransactionFactory.Provider.OMID.getCode(), encoded[encoded.length - 1]);

            // What a region server does with the bytes Phoenix attaches to its scans: no connection, no TM.
            PhoenixTransactionContext decoded = TransactionFactory.getTransactionContext(encoded,
                    MetaDataProtocol.PHOENIX_VERSION);
            assertEquals(TransactionFactory.Provider.OMID, decoded.getProvider());
            assertTrue(decoded.isTransactionRunning());
            assertEquals(ctx.getTransactionId(), decoded.getTransactionId());
            assertEquals(ctx.getReadPointer(), decoded.getReadPointer());
            assertEquals(ctx.getWritePointer(), decoded.getWritePointer());
            assertEquals(PhoenixVisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, decoded.getVisibilityLevel());
            assertArrayEquals(encoded, decoded.encodeTransaction(), "decoding and encoding again is lossless");

            PTable table = PhoenixRuntime.getTable(c, t);
            try (Table raw = hbase(t); Table read = decoded.getTransactionalTable(raw, false)) {
                PColumn v = table.getColumnForColumnName("V");
                byte[] value = read.get(new Get(PLong.INSTANCE.toBytes(1L))).getValue(v.getFamilyName().getBytes(),
                        v.getColumnQualifierBytes());
                assertEquals("mine", PVarchar.INSTANCE.toObject(value),
                        "the decoded snapshot reads the transaction's own uncommitted write");
            }
            // It has no TM behind it: it cannot begin one, and commit/abort leave the real transaction alone.
            SQLException noTm = assertThrows(SQLException.class, decoded::begin);
            assertTrue(noTm.getMessage() != null && !noTm.getMessage().isEmpty(), noTm.toString());
            decoded.commit();
            decoded.abort();
            assertTrue(ctx.isTransactionRunning());
            assertEquals(0, longOf(other, "SELECT COUNT(*) FROM " + t));

            c.commit();
            other.commit();
            assertEquals("mine", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"));
        }
        IOException bad = assertThrows(IOException.class,
                () -> PhoenixTxnProvider.INSTANCE.getTransactionContext(new byte[] {1, 2, 3, 2}));
        assertTrue(bad.getMessage().contains("Cannot decode"), bad.getMessage());
        assertNull(TransactionFactory.getTransactionContext(new byte[0], MetaDataProtocol.PHOENIX_VERSION));
        assertFalse(PhoenixTxnProvider.INSTANCE.getTransactionContext(new byte[] {2}).isTransactionRunning());
    }

    /**
     * newTransactionContext(ctx, true) is what Phoenix gives a parallel sub-task: same id and pointers, its own
     * write set, no commit. Its writes are not the parent's until joined: here a concurrent writer of the child's
     * row does not make the parent's commit fail.
     */
    @Test
    void aSubTaskContextSharesPointersKeepsItsOwnWriteSetAndCannotCommit() throws Exception {
        String t = Sql.createTable("SUBTASK", COLUMNS);
        try (Connection parentConn = open(false); Connection racer = open(false)) {
            update(parentConn, "UPSERT INTO " + t + " VALUES (1, 'parent')");
            assertEquals("parent", stringOrNull(parentConn, "SELECT V FROM " + t + " WHERE K = 1"));
            update(racer, "UPSERT INTO " + t + " VALUES (2, 'racer')"); // begins after the parent
            PhoenixTransactionContext parent = Sql.context(parentConn);
            parent.checkpoint(true);
            PhoenixTransactionContext child = parent.newTransactionContext(parent, true);
            assertTrue(child.isTransactionRunning());
            assertEquals(parent.getTransactionId(), child.getTransactionId());
            assertEquals(parent.getReadPointer(), child.getReadPointer());
            assertEquals(parent.getWritePointer(), child.getWritePointer());
            assertEquals(parent.getVisibilityLevel(), child.getVisibilityLevel());
            assertEquals(TransactionFactory.Provider.OMID, child.getProvider());

            PTable table = PhoenixRuntime.getTable(parentConn, t);
            try (Table raw = hbase(t); Table write = child.getTransactionalTable(raw, false)) {
                write.put(phoenixRow(table, 2, "child"));
            }
            child.commit(); // a sub-task cannot commit: nothing happens
            child.abort();  // nor abort the parent's transaction
            assertTrue(parent.isTransactionRunning());
            assertEquals(CommitTable.Entry.State.ABSENT, commitTable().lookup(parent.getTransactionId()).state(),
                    "the child's commit reached no commit point");

            racer.commit();
            parentConn.commit(); // no conflict: row 2 is in the child's write set, not in the parent's
        }
        try (Connection check = open(false)) {
            assertEquals("parent", stringOrNull(check, "SELECT V FROM " + t + " WHERE K = 1"));
            assertEquals("racer", stringOrNull(check, "SELECT V FROM " + t + " WHERE K = 2"));
        }
    }

    @Test
    void joinMergesTheChildsWritesSoTheParentsCommitCoversThem() throws Exception {
        String t = Sql.createTable("JOIN", COLUMNS);
        try (Connection parentConn = open(false); Connection observer = open(false)) {
            assertEquals(0, longOf(observer, "SELECT COUNT(*) FROM " + t));
            update(parentConn, "UPSERT INTO " + t + " VALUES (1, 'parent')");
            assertEquals(1, longOf(parentConn, "SELECT COUNT(*) FROM " + t));
            PhoenixTransactionContext parent = Sql.context(parentConn);
            PhoenixTransactionContext child = parent.newTransactionContext(parent, true);
            PTable table = PhoenixRuntime.getTable(parentConn, t);
            try (Table raw = hbase(t); Table write = child.getTransactionalTable(raw, false)) {
                write.put(phoenixRow(table, 2, "child"));
            }
            parent.join(child);
            assertEquals(2, longOf(parentConn, "SELECT COUNT(*) FROM " + t), "the parent reads the child's write");
            parentConn.commit();
            assertEquals(0, longOf(observer, "SELECT COUNT(*) FROM " + t));
            observer.commit();
            assertEquals("parent", stringOrNull(observer, "SELECT V FROM " + t + " WHERE K = 1"));
            assertEquals("child", stringOrNull(observer, "SELECT V FROM " + t + " WHERE K = 2"),
                    "the parent's commit covered the joined write");
        }
        // Joined writes take part in conflict detection, and an abort removes them with the parent's own.
        try (Connection parentConn = open(false); Connection racer = open(false)) {
            update(parentConn, "UPSERT INTO " + t + " VALUES (3, 'parent')");
            assertEquals("parent", stringOrNull(parentConn, "SELECT V FROM " + t + " WHERE K = 3"));
            update(racer, "UPSERT INTO " + t + " VALUES (4, 'racer')");
            PhoenixTransactionContext parent = Sql.context(parentConn);
            long txId = parent.getTransactionId();
            PhoenixTransactionContext child = parent.newTransactionContext(parent, true);
            PTable table = PhoenixRuntime.getTable(parentConn, t);
            try (Table raw = hbase(t); Table write = child.getTransactionalTable(raw, false)) {
                write.put(phoenixRow(table, 4, "child"));
            }
            parent.join(child);
            racer.commit();
            SQLException e = assertThrows(SQLException.class, parentConn::commit);
            assertEquals(523, e.getErrorCode(), e.toString());
            assertTrue(Sql.cellsOfTransaction(t, txId).isEmpty(), "the abort removed the joined cells too");
        }
        try (Connection check = open(false)) {
            assertNull(stringOrNull(check, "SELECT V FROM " + t + " WHERE K = 3"));
            assertEquals("racer", stringOrNull(check, "SELECT V FROM " + t + " WHERE K = 4"));
        }
    }

    @Test
    void abortToleratesNothingRunning() throws Exception {
        String t = Sql.createTable("ABORT", COLUMNS);
        try (Connection c = open(false)) {
            PhoenixTransactionContext fresh = TransactionFactory.Provider.OMID.getTransactionProvider()
                    .getTransactionContext(Sql.phoenix(c));
            assertFalse(fresh.isTransactionRunning());
            fresh.abort();
            fresh.abort();
            c.rollback(); // nothing started on the connection either
            c.rollback();

            update(c, "UPSERT INTO " + t + " VALUES (1, 'one')");
            PhoenixTransactionContext ctx = Sql.context(c);
            PhoenixTransactionContext child = ctx.newTransactionContext(ctx, true);
            c.commit();
            ctx.abort(); // after the commit: nothing runs
            child.abort();
            c.rollback();
            PhoenixTxnProvider.INSTANCE.getTransactionContext(new byte[0]).abort();

            update(c, "UPSERT INTO " + t + " VALUES (2, 'two')");
            c.rollback();
            ctx.abort(); // after the rollback
            c.rollback();
            assertEquals(1, longOf(c, "SELECT COUNT(*) FROM " + t));
            assertEquals("one", stringOrNull(c, "SELECT V FROM " + t + " WHERE K = 1"));
        }
    }

    private static Table hbase(String table) throws IOException {
        return Sql.hbaseTable(table);
    }

    private static CommitTable commitTable() throws IOException {
        TxnClientConfig config = TxnClientConfig.from(SharedStack.get().configuration()::get);
        return new HBaseCommitTable(SharedStack.get().hbase().getConnection(),
                TableName.valueOf(config.commitTable()));
    }

    /** The cells Phoenix itself writes for a row (K, V) of a non-encoded table: the empty column and V. */
    private static Put phoenixRow(PTable table, long k, String v) throws SQLException {
        PColumn column = table.getColumnForColumnName("V");
        Pair<byte[], byte[]> empty = EncodedColumnsUtil.getEmptyKeyValueInfo(table);
        return new Put(PLong.INSTANCE.toBytes(k))
                .addColumn(SchemaUtil.getEmptyColumnFamily(table), empty.getFirst(), empty.getSecond())
                .addColumn(column.getFamilyName().getBytes(), column.getColumnQualifierBytes(),
                        PVarchar.INSTANCE.toBytes(v));
    }
}
