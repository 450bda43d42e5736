package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.SharedStack;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.phoenix.schema.PColumn;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.types.PLong;
import org.apache.phoenix.schema.types.PVarchar;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.transaction.PhoenixTransactionContext.PhoenixVisibilityLevel;
import org.apache.phoenix.util.PhoenixRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.jdbc.Sql.commitAll;
import static io.phoenixtxn.it.jdbc.Sql.longOf;
import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.stringOrNull;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Statement-level snapshots inside one transaction (SIX, VLDB'18 sec. 5): checkpoints, visibility levels, the
 * checkpoint budget, and UPSERT ... SELECT over the table it writes, iterated in one transaction.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JdbcCheckpointIT {
    private static final String COLUMNS = "K BIGINT PRIMARY KEY, V VARCHAR";

    @BeforeAll
    static void stack() {
        SharedStack.get();
    }

    /**
     * At the provider level, reading through the context's table wrapper (what Phoenix's scans use): checkpoint()
     * moves the write pointer and hides the current statement's writes, SNAPSHOT shows them again, SNAPSHOT_ALL
     * returns every version the transaction wrote.
     */
    @Test
    void checkpointMovesTheWritePointerAndLevelsChooseWhatReadsSee() throws Exception {
        String t = Sql.createTable("SIX", COLUMNS);
        commitAll("UPSERT INTO " + t + " VALUES (1, 'committed')");
        try (Connection c = open(false); Connection other = open(false)) {
            PTable table = PhoenixRuntime.getTable(c, t);
            PColumn v = table.getColumnForColumnName("V");
            byte[] family = v.getFamilyName().getBytes();
            byte[] qualifier = v.getColumnQualifierBytes();
            byte[] row = PLong.INSTANCE.toBytes(1L);
            assertEquals("committed", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"));

            update(c, "UPSERT INTO " + t + " VALUES (1, 'first')");
            assertEquals("first", stringOrNull(c, "SELECT V FROM " + t + " WHERE K = 1")); // flushed at the id
            PhoenixTransactionContext ctx = Sql.context(c);
            long txId = ctx.getTransactionId();
            assertEquals(txId, ctx.getWritePointer());
            assertEquals(PhoenixVisibilityLevel.SNAPSHOT, ctx.getVisibilityLevel());

            ctx.checkpoint(true);
            assertEquals(txId + 1, ctx.getWritePointer(), "a checkpoint moves the write pointer");
            assertEquals(txId, ctx.getReadPointer(), "and reads up to the previous one");
            assertEquals(PhoenixVisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, ctx.getVisibilityLevel());
            assertEquals(txId, ctx.getTransactionId(), "the transaction id never changes");

            try (Table raw = Sql.phoenix(c).getQueryServices().getTable(table.getPhysicalName().getBytes());
                 Table txTable = ctx.getTransactionalTable(raw, false)) {
                assertEquals(List.of("first"), values(txTable, row, family, qualifier, false),
                        "writes before the checkpoint stay visible");
                txTable.put(new Put(row).addColumn(family, qualifier, PVarchar.INSTANCE.toBytes("second")));
                assertEquals(List.of("first"), values(txTable, row, family, qualifier, false),
                        "SNAPSHOT_EXCLUDE_CURRENT hides what the current statement wrote");

                ctx.setVisibilityLevel(PhoenixVisibilityLevel.SNAPSHOT);
                assertEquals(List.of("second"), values(txTable, row, family, qualifier, false),
                        "SNAPSHOT restores read-your-own-writes");

                ctx.setVisibilityLevel(PhoenixVisibilityLevel.SNAPSHOT_ALL);
                assertEquals(List.of("second", "first", "committed"), values(txTable, row, family, qualifier, true),
                        "SNAPSHOT_ALL returns every version the transaction wrote, newest first, then the newest"
                                + " committed one below them");

                ctx.setVisibilityLevel(PhoenixVisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT);
                assertEquals(List.of("first"), values(txTable, row, family, qualifier, false));
            }
            assertEquals("committed", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"));
            c.commit();
            other.commit();
            assertEquals("second", stringOrNull(other, "SELECT V FROM " + t + " WHERE K = 1"),
                    "the commit covers the writes of every checkpoint; the newest wins");
        }
    }

    /**
     * UPSERT INTO t SELECT ... FROM t, repeated in one transaction: Phoenix checkpoints before each statement, so
     * each one reads what the previous ones wrote and never its own rows (it doubles the table exactly).
     */
    @Test
    void upsertSelectOverItsOwnTableSeesThePreviousStatementButNeverItself() throws SQLException {
        String t = Sql.createTable("DOUBLE", COLUMNS);
        try (Connection c = open(false); Connection other = open(false)) {
            assertEquals(0, longOf(other, "SELECT COUNT(*) FROM " + t));
            update(c, "UPSERT INTO " + t + " VALUES (1, 'seed')");
            long txId = -1;
            for (int i = 1; i <= 6; i++) {
                long rows = 1L << (i - 1);
                assertEquals(rows, update(c, "UPSERT INTO " + t + " (K, V) SELECT K + " + rows + ", 'gen" + i
                        + "' FROM " + t), "iteration " + i + " read exactly the rows before it");
                PhoenixTransactionContext ctx = Sql.context(c);
                txId = i == 1 ? ctx.getTransactionId() : txId;
                assertEquals(txId + i, ctx.getWritePointer(), "one checkpoint per statement");
                assertEquals(PhoenixVisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT, ctx.getVisibilityLevel());
                assertEquals(2 * rows, longOf(c, "SELECT COUNT(*) FROM " + t));
                assertEquals(PhoenixVisibilityLevel.SNAPSHOT, ctx.getVisibilityLevel(),
                        "a query switches back to read-your-own-writes");
            }
            assertEquals(64, longOf(c, "SELECT MAX(K) FROM " + t));
            assertEquals(0, longOf(other, "SELECT COUNT(*) FROM " + t));
            c.commit();
            other.commit();
            assertEquals(64, longOf(other, "SELECT COUNT(*) FROM " + t));
            assertEquals(32, longOf(other, "SELECT COUNT(*) FROM " + t + " WHERE V = 'gen6'"));
        }
    }

    /**
     * The transitive-closure pattern (VLDB'18 Fig. 8): one UPSERT SELECT per iteration joins the table with
     * itself. Over a chain 1 -> 2 -> ... -> 9, iteration i must hold exactly the pairs at distance <= 2^i: it sees
     * the previous iteration's pairs and not its own.
     */
    @Test
    void transitiveClosureIteratesInOneTransaction() throws SQLException {
        String t = Sql.createTable("CLOSURE", "SRC BIGINT NOT NULL, DST BIGINT NOT NULL CONSTRAINT PK PRIMARY KEY"
                + " (SRC, DST)");
        int nodes = 9;
        try (Connection c = open(false)) {
            for (int n = 1; n < nodes; n++) {
                update(c, "UPSERT INTO " + t + " VALUES (" + n + ", " + (n + 1) + ")");
            }
            String step = "UPSERT INTO " + t + " (SRC, DST) SELECT A.SRC, B.DST FROM " + t + " A JOIN " + t
                    + " B ON A.DST = B.SRC";
            long previous = longOf(c, "SELECT COUNT(*) FROM " + t);
            assertEquals(pairsWithin(nodes, 1), previous);
            int iterations = 0;
            for (int i = 1; i <= 6; i++) {
                update(c, step);
                iterations = i;
                long reach = Math.min(1L << i, nodes - 1);
                long count = longOf(c, "SELECT COUNT(*) FROM " + t);
                assertEquals(pairsWithin(nodes, reach), count, "iteration " + i);
                assertEquals(reach, longOf(c, "SELECT MAX(DST - SRC) FROM " + t), "iteration " + i);
                if (count == previous) {
                    break;
                }
                previous = count;
            }
            assertEquals(4, iterations, "reach 2, 4, 8, then a fixpoint");
            c.commit();
        }
        try (Connection check = open(false)) {
            assertEquals(pairsWithin(nodes, nodes - 1), longOf(check, "SELECT COUNT(*) FROM " + t));
        }
    }

    /** Pairs (a, b) of a chain of {@code nodes} with 1 <= b - a <= reach. */
    private static long pairsWithin(int nodes, long reach) {
        long pairs = 0;
        for (long d = 1; d <= reach; d++) {
            pairs += nodes - d;
        }
        return pairs;
    }

    /**
     * 49 statements that read the table they write, each one a checkpoint, in one transaction; the 50th fails
     * with a clear error, and the transaction still commits what the 49 wrote.
     */
    @Test
    void fortyNineCheckpointsPerTransactionThenAClearError() throws SQLException {
        String t = Sql.createTable("CKLIMIT", COLUMNS);
        String next = "UPSERT INTO " + t + " (K, V) SELECT MAX(K) + 1, 'next' FROM " + t;
        try (Connection c = open(false)) {
            update(c, "UPSERT INTO " + t + " VALUES (0, 'zero')");
            long txId = -1;
            for (int i = 1; i <= 49; i++) {
                assertEquals(1, update(c, next), "statement " + i);
                txId = i == 1 ? Sql.context(c).getTransactionId() : txId;
            }
            assertEquals(txId + 49, Sql.context(c).getWritePointer());
            assertEquals(49, longOf(c, "SELECT MAX(K) FROM " + t), "each statement saw the previous one's row");
            SQLException e = assertThrows(SQLException.class, () -> update(c, next));
            assertTrue(e.getMessage().contains("49 checkpoints") && e.getMessage().contains("commit or roll back"),
                    e.getMessage());
            assertEquals(50, longOf(c, "SELECT COUNT(*) FROM " + t), "nothing the transaction wrote is lost");
            c.commit();
        }
        try (Connection check = open(false)) {
            assertEquals(50, longOf(check, "SELECT COUNT(*) FROM " + t));
            assertEquals(49, longOf(check, "SELECT MAX(K) FROM " + t));
            // The next transaction has a fresh budget.
            assertEquals(1, update(check, next));
            check.commit();
            assertEquals(51, longOf(check, "SELECT COUNT(*) FROM " + t));
        }
    }

    @Test
    void theContextRefusesTheFiftiethCheckpoint() throws SQLException {
        String t = Sql.createTable("CKCTX", COLUMNS);
        try (Connection c = open(false)) {
            longOf(c, "SELECT COUNT(*) FROM " + t); // begins the transaction
            PhoenixTransactionContext ctx = Sql.context(c);
            long txId = ctx.getTransactionId();
            for (int i = 1; i <= 49; i++) {
                ctx.checkpoint(i % 2 == 0);
                assertEquals(txId + i, ctx.getWritePointer());
            }
            SQLException e = assertThrows(SQLException.class, () -> ctx.checkpoint(true));
            assertEquals(1077, e.getErrorCode(), e.toString());
            assertTrue(e.getMessage().contains("Transaction " + txId) && e.getMessage().contains("49 checkpoints"),
                    e.getMessage());
            assertEquals(txId + 49, ctx.getWritePointer(), "the failed checkpoint changed nothing");
            c.rollback();
        }
    }

    private static List<String> values(Table table, byte[] row, byte[] family, byte[] qualifier, boolean all)
            throws Exception {
        Get get = new Get(row).addColumn(family, qualifier);
        if (all) {
            get.readAllVersions();
        }
        Result result = table.get(get);
        List<String> out = new ArrayList<>();
        for (Cell cell : result.getColumnCells(family, qualifier)) {
            out.add((String) PVarchar.INSTANCE.toObject(CellUtil.cloneValue(cell)));
        }
        return out;
    }
}
