package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.query.DelegateConnectionQueryServices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.jdbc.Sql.commitAll;
import static io.phoenixtxn.it.jdbc.Sql.longOf;
import static io.phoenixtxn.it.jdbc.Sql.longs;
import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.stringOrNull;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures reported clearly, with nothing lost: bad SQL inside a transaction, a TM that does not answer at commit
 * (injected into the transactional client), a JDBC connection that finds no TM, and a TM that dies while a JDBC
 * transaction runs. The JVM's embedded TM is shared by every test class and is never stopped here: dead TMs are
 * injected ones, or private TMs on ZooKeeper paths of their own.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JdbcErrorsIT {
    private static final String COLUMNS = "K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT";
    private static final byte[] FAMILY = Bytes.toBytes("f");
    private static final byte[] QUALIFIER = Bytes.toBytes("v");

    @BeforeAll
    static void stack() {
        SharedStack.get();
    }

    @Test
    void badSqlFailsClearlyAndTheTransactionKeepsItsWrites() throws SQLException {
        String t = Sql.createTable("BADSQL", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (0, 'committed', 0)");
        try (Connection c = open(false); Connection other = open(false)) {
            assertEquals(1, longOf(other, "SELECT COUNT(*) FROM " + t));
            update(c, "UPSERT INTO " + t + " VALUES (1, 'one', 1)");

            SQLException syntax = assertThrows(SQLException.class, () -> update(c, "UPSRT INTO " + t + " VALUES (2)"));
            assertEquals(601, syntax.getErrorCode(), syntax.toString());
            assertEquals("42P00", syntax.getSQLState());
            SQLException column = assertThrows(SQLException.class,
                    () -> update(c, "UPSERT INTO " + t + " (K, NOPE) VALUES (2, 'x')"));
            assertEquals(504, column.getErrorCode(), column.toString());
            assertTrue(column.getMessage().contains("NOPE"), column.getMessage());
            SQLException table = assertThrows(SQLException.class,
                    () -> longOf(c, "SELECT COUNT(*) FROM NO_SUCH_TABLE_" + t));
            assertEquals(1012, table.getErrorCode(), table.toString());
            SQLException type = assertThrows(SQLException.class,
                    () -> update(c, "UPSERT INTO " + t + " VALUES ('abc', 'x', 1)"));
            assertEquals(203, type.getErrorCode(), type.toString());
            SQLException badSelect = assertThrows(SQLException.class,
                    () -> update(c, "UPSERT INTO " + t + " (K, V) SELECT K + 10, NOPE FROM " + t));
            assertEquals(504, badSelect.getErrorCode(), badSelect.toString());

            update(c, "UPSERT INTO " + t + " VALUES (2, 'two', 2)");
            assertEquals(List.of(0L, 1L, 2L), longs(c, "SELECT K FROM " + t + " ORDER BY K"),
                    "the failed statements cost the transaction nothing");
            c.commit();
            assertEquals(1, longOf(other, "SELECT COUNT(*) FROM " + t));
            other.commit();
            assertEquals(List.of(0L, 1L, 2L), longs(other, "SELECT K FROM " + t + " ORDER BY K"));
        }
        try (Connection auto = open(true)) {
            assertThrows(SQLException.class, () -> update(auto, "UPSERT INTO " + t + " (K, V) SELECT K + 10, NOPE"
                    + " FROM " + t));
            assertEquals(3, longOf(auto, "SELECT COUNT(*) FROM " + t), "a failed autocommit statement wrote nothing");
        }
    }

    /** The client owns the commit point: a TM that does not answer at commit means nothing was decided. */
    @Test
    void aTmThatDoesNotAnswerAtCommitRollsTheTransactionBackAndSaysWhy() throws Exception {
        TableName name = createClientTable("DEADTM");
        TxnClientConfig config = TxnClientConfig.from(SharedStack.get().configuration()::get);
        TransactionManager real = SharedStack.get().transactionManager();
        TransactionManager deadAtCommit = new Unreachable(real, false);
        org.apache.hadoop.hbase.client.Connection hbase = SharedStack.get().hbase().getConnection();
        try (TxnClient good = new TxnClient(hbase, () -> real, config);
             TxnClient doomed = new TxnClient(hbase, () -> deadAtCommit, config);
             TransactionalTable goodTable = good.table(name);
             TransactionalTable doomedTable = doomed.table(name)) {
            Transaction seed = good.begin();
            goodTable.put(seed, put("x", "kept"));
            good.commit(seed);

            Transaction tx = doomed.begin();
            doomedTable.put(tx, put("x", "lost"));
            doomedTable.put(tx, put("y", "lost"));
            assertEquals("lost", read(doomedTable, tx, "y"), "read-your-own-writes before the commit");
            TmException e = assertThrows(TmException.class, () -> doomed.commit(tx));
            assertTrue(e.getMessage().contains("rolled back") && e.getMessage().contains("TM unreachable"),
                    e.getMessage());
            assertEquals(Transaction.Status.ABORTED, tx.status());
            assertTrue(Sql.cellsOfTransaction(name.getNameAsString(), tx.txId()).isEmpty(),
                    "no tentative cell is left behind");
            assertEquals(CommitTable.Entry.State.ABSENT, commitTable(config).lookup(tx.txId()).state());

            Transaction check = good.begin();
            assertEquals("kept", read(goodTable, check, "x"));
            assertNull(read(goodTable, check, "y"));
            good.commit(check);
        }
        try (TxnClient noTm = new TxnClient(hbase, () -> new Unreachable(real, true), config)) {
            TmException e = assertThrows(TmException.class, noTm::begin);
            assertTrue(e.getMessage().contains("TM unreachable"), e.getMessage());
        }
    }

    /**
     * A connection whose transaction client looks for a TM where none is advertised. Phoenix keeps one connection
     * service per URL and principal, so the connection gets a principal of its own: its properties would otherwise
     * be ignored in favour of the shared service's.
     */
    @Test
    void aJdbcConnectionThatFindsNoTmFailsClearlyAndLosesNothing() throws Exception {
        String t = Sql.createTable("NOTM", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (1, 'kept', 1)");
        String unique = "no-tm-here-" + System.nanoTime();
        try (Connection normal = open(false); Connection dead = remoteTmConnection(unique, "/" + unique)) {
            assertNotSame(services(normal), services(dead),
                    "the principal gave the connection a connection service of its own");
            dead.setAutoCommit(false);
            long started = System.nanoTime();
            SQLException e = assertThrows(SQLException.class,
                    () -> update(dead, "UPSERT INTO " + t + " VALUES (2, 'lost', 2)"));
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(30), "bounded by the discovery timeout");
            assertEquals(1077, e.getErrorCode(), e.toString());
            String message = e.getMessage();
            assertTrue(message.contains("No transaction manager is registered in ZooKeeper"), message);
            assertTrue(message.contains("/" + unique), "names where it looked: " + message);
            assertTrue(message.contains("phoenix.txn.tm.mode=embedded") && message.contains("tm-server"),
                    "says how to fix it: " + message);

            SQLException read = assertThrows(SQLException.class, () -> longOf(dead, "SELECT COUNT(*) FROM " + t));
            assertEquals(1077, read.getErrorCode(), "no half-built client is cached: " + read);
            dead.setAutoCommit(true);
            SQLException auto = assertThrows(SQLException.class,
                    () -> update(dead, "UPSERT INTO " + t + " VALUES (3, 'lost', 3)"));
            assertEquals(1077, auto.getErrorCode(), auto.toString());
            dead.rollback();

            assertEquals(List.of(1L), longs(normal, "SELECT K FROM " + t + " ORDER BY K"));
            assertEquals("kept", stringOrNull(normal, "SELECT V FROM " + t + " WHERE K = 1"));
            update(normal, "UPSERT INTO " + t + " VALUES (4, 'still works', 4)");
            normal.commit();
            assertEquals(List.of(1L, 4L), longs(normal, "SELECT K FROM " + t + " ORDER BY K"));
        }
        // Without a principal of its own, the same properties reach the shared connection service, which
        // already has its transaction client: they are ignored and the connection works with the JVM's TM.
        try (Connection normal = open(false);
             Connection sameUrl = DriverManager.getConnection(SharedStack.get().jdbcUrl(),
                     remoteTmProperties("/" + unique))) {
            assertSame(services(normal), services(sameUrl));
            sameUrl.setAutoCommit(false);
            update(sameUrl, "UPSERT INTO " + t + " VALUES (5, 'shared service', 5)");
            sameUrl.commit();
            assertEquals(List.of(1L, 4L, 5L), longs(normal, "SELECT K FROM " + t + " ORDER BY K"));
        }
    }

    /**
     * A private TM (primary on a ZooKeeper path of its own) serves a JDBC transaction and then stops before its
     * commit: the commit fails naming the cause, the tentative cells are gone, committed data is untouched.
     */
    @Test
    void aTmThatDiesDuringAJdbcTransactionFailsTheCommitAndLeavesNothingBehind() throws Exception {
        String t = Sql.createTable("TMDIES", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (1, 'kept', 1)");
        String unique = "dying-tm-" + System.nanoTime();
        String path = "/" + unique;
        Map<String, String> settings = Map.of(
                HaConfig.ZK_QUORUM, "localhost:" + SharedStack.get().zooKeeperPort(),
                HaConfig.ZK_PATH, path,
                HaConfig.LEASE_MS, "5000",
                TmServerConfig.PORT, "0",
                TmConfig.CONFLICT_ENTRIES, Integer.toString(1 << 14));
        HaConfig ha = HaConfig.from(settings::get);
        CuratorFramework zk = ZooKeeperClients.connect(ha);
        TmHaService tm = null;
        try {
            tm = TmHaService.start(zk, TmConfig.from(settings::get), TmServerConfig.from(settings::get), ha);
            tm.awaitPrimary(60, TimeUnit.SECONDS);
            try (Connection c = remoteTmConnection(unique, path)) {
                c.setAutoCommit(false);
                update(c, "UPSERT INTO " + t + " VALUES (2, 'lost', 2)");
                update(c, "UPSERT INTO " + t + " VALUES (1, 'overwritten', 1)");
                assertEquals("overwritten", stringOrNull(c, "SELECT V FROM " + t + " WHERE K = 1"));
                long txId = Sql.context(c).getTransactionId();
                assertFalse(Sql.cellsOfTransaction(t, txId).isEmpty(), "tentative cells are in HBase");

                tm.close(); // the TM goes away; its advertisement goes with it
                SQLException e = assertThrows(SQLException.class, c::commit);
                assertEquals(1077, e.getErrorCode(), e.toString());
                assertTrue(e.getMessage().contains("rolled back")
                        && e.getMessage().contains("transaction manager did not answer"), e.getMessage());
                assertTrue(Sql.cellsOfTransaction(t, txId).isEmpty(), "the rollback removed every tentative cell");
                TxnClientConfig config = TxnClientConfig.from(SharedStack.get().configuration()::get);
                assertEquals(CommitTable.Entry.State.ABSENT, commitTable(config).lookup(txId).state());
            }
        } finally {
            if (tm != null) {
                tm.close();
            }
            zk.close();
        }
        try (Connection check = open(false)) {
            assertEquals(List.of(1L), longs(check, "SELECT K FROM " + t + " ORDER BY K"));
            assertEquals("kept", stringOrNull(check, "SELECT V FROM " + t + " WHERE K = 1"));
        }
    }

    /** A connection with its own connection service (principal {@code principal}) and a TM found in ZooKeeper. */
    private static Connection remoteTmConnection(String principal, String zkPath) throws SQLException {
        return DriverManager.getConnection(SharedStack.get().jdbcUrl() + ":" + principal, remoteTmProperties(zkPath));
    }

    /**
     * The connection service Phoenix caches per URL and principal. A connection opened with properties sees it
     * through a per-connection delegate that only overrides its properties; the transaction client comes from
     * the cached service underneath.
     */
    private static ConnectionQueryServices services(Connection c) throws SQLException {
        ConnectionQueryServices services = Sql.phoenix(c).getQueryServices();
        while (services instanceof DelegateConnectionQueryServices) {
            services = ((DelegateConnectionQueryServices) services).getDelegate();
        }
        return services;
    }

    private static Properties remoteTmProperties(String zkPath) {
        Properties p = new Properties();
        p.setProperty("phoenix.transactions.enabled", "true");
        p.setProperty("phoenix.txn.tm.mode", "remote");
        p.setProperty(HaConfig.DISCOVERY_TIMEOUT_MS, "2000");
        p.setProperty(HaConfig.ZK_PATH, zkPath);
        return p;
    }

    private static TableName createClientTable(String prefix) throws IOException {
        TableName name = TableName.valueOf(SharedStack.uniqueTable(prefix));
        try (Admin admin = SharedStack.get().hbase().getConnection().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(Integer.MAX_VALUE)
                            .build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build());
        }
        return name;
    }

    private static CommitTable commitTable(TxnClientConfig config) throws IOException {
        return new HBaseCommitTable(SharedStack.get().hbase().getConnection(), TableName.valueOf(config.commitTable()));
    }

    private static Put put(String row, String value) {
        return new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value));
    }

    private static String read(TransactionalTable table, Transaction tx, String row) throws IOException {
        byte[] v = table.get(tx, new Get(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER)).getValue(FAMILY, QUALIFIER);
        return v == null ? null : Bytes.toString(v);
    }

    /** The real TM for everything but commit (or begin): those fail as an unreachable TM does. */
    private static final class Unreachable implements TransactionManager {
        private final TransactionManager real;
        private final boolean atBegin;

        Unreachable(TransactionManager real, boolean atBegin) {
            this.real = real;
            this.atBegin = atBegin;
        }

        @Override
        public long begin() throws TmException {
            if (atBegin) {
                throw new TmException("TM unreachable: connection refused (injected)");
            }
            return real.begin();
        }

        @Override
        public CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
                throws TmException {
            throw new TmException("TM unreachable: no answer within the request timeout (injected)");
        }

        @Override
        public long fence(long tableId) throws TmException {
            return real.fence(tableId);
        }

        @Override
        public long lowWaterMark() throws TmException {
            return real.lowWaterMark();
        }

        @Override
        public void close() {
            // the real TM belongs to the JVM
        }
    }
}
