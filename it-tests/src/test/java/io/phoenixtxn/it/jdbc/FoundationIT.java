package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.phoenix.PhoenixTxnProvider;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.phoenix.transaction.TransactionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole path through JDBC on the minicluster: Phoenix -> our provider (OMID slot) -> our TM -> our client ->
 * HBase -> our region observer. Guards the foundation's invariants (docs/design.md, "Invariants").
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FoundationIT {
    private static String table;

    @BeforeAll
    static void createTable() throws SQLException {
        table = SharedStack.uniqueTable("FOUNDATION");
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
        }
    }

    @Test
    void committedWriteIsVisibleToLaterTransactionsOnlyNotToEarlierOnes() throws SQLException {
        try (Connection writer = SharedStack.connect(); Connection early = SharedStack.connect();
             Connection late = SharedStack.connect()) {
            writer.setAutoCommit(false);
            early.setAutoCommit(false);
            late.setAutoCommit(false);
            assertNull(value(early, 1)); // early's snapshot begins here, before the write commits
            upsert(writer, 1, "one");
            assertNull(value(early, 1), "uncommitted write is invisible to others");
            writer.commit();
            assertNull(value(early, 1), "a commit after the snapshot began stays invisible");
            assertEquals("one", value(late, 1), "a transaction that starts after the commit sees it");
            early.commit();
            assertEquals("one", value(early, 1), "and so does the earlier connection's next transaction");
        }
    }

    @Test
    void writeWriteConflictFailsTheSecondCommitWithCode523() throws SQLException {
        try (Connection a = SharedStack.connect(); Connection b = SharedStack.connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            upsert(a, 2, "from-a");
            upsert(b, 2, "from-b");
            a.commit();
            SQLException e = assertThrows(SQLException.class, b::commit);
            assertEquals(523, e.getErrorCode());
            assertEquals("42900", e.getSQLState());
            assertTrue(e.getMessage().contains("same row"), e.getMessage());
            assertEquals("from-a", value(b, 2));
        }
    }

    @Test
    void rollbackLeavesNothingVisible() throws SQLException {
        try (Connection a = SharedStack.connect(); Connection other = SharedStack.connect()) {
            a.setAutoCommit(false);
            upsert(a, 3, "rolled-back");
            assertEquals("rolled-back", value(a, 3), "read-your-own-writes before rollback");
            a.rollback();
            assertNull(value(a, 3));
            assertNull(value(other, 3));
        }
    }

    @Test
    void tableDescriptorCarriesOurObserver() throws Exception {
        try (Admin admin = SharedStack.get().hbase().getConnection().getAdmin()) {
            TableDescriptor descriptor = admin.getDescriptor(TableName.valueOf(table));
            assertTrue(descriptor.hasCoprocessor(ObserverNames.PHOENIX_OBSERVER), descriptor.toString());
            assertFalse(descriptor.hasCoprocessor("org.apache.phoenix.coprocessor.OmidTransactionalProcessor"));
        }
    }

    @Test
    void noApacheOmidClassIsUsedAtRuntime() throws Exception {
        try (Connection c = SharedStack.connect()) {
            c.setAutoCommit(false);
            upsert(c, 4, "four");
            c.commit();
        }
        assertSame(PhoenixTxnProvider.INSTANCE, TransactionFactory.Provider.OMID.getTransactionProvider());
        Method findLoaded = ClassLoader.class.getDeclaredMethod("findLoadedClass", String.class);
        findLoaded.setAccessible(true);
        ClassLoader loader = FoundationIT.class.getClassLoader();
        for (String omidClass : List.of("org.apache.omid.tso.client.TSOClient",
                "org.apache.omid.transaction.HBaseTransactionManager", "org.apache.omid.transaction.TTable",
                "org.apache.phoenix.transaction.OmidTransactionContext",
                "org.apache.phoenix.transaction.OmidTransactionTable",
                "org.apache.phoenix.coprocessor.OmidTransactionalProcessor")) {
            assertNull(findLoaded.invoke(loader, omidClass), omidClass + " was loaded");
        }
        // Not even on the classpath: Phoenix could not reach Omid's client if it tried.
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.apache.omid.tso.client.TSOClient"));
    }

    static void upsert(Connection c, long k, String v) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", '" + v + "')");
        }
    }

    static String value(Connection c, long k) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT V FROM " + table
                + " WHERE K = " + k)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
