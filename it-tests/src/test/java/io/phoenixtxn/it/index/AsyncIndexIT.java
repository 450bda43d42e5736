package io.phoenixtxn.it.index;

import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.indextool.TransactionalIndexTool;
import io.phoenixtxn.it.LogCapture;
import io.phoenixtxn.it.SharedStack;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.mapreduce.TableOutputFormat;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.mapreduce.index.DirectHTableWriter;
import org.apache.phoenix.mapreduce.index.IndexTool;
import org.apache.phoenix.mapreduce.util.PhoenixConfigurationUtil;
import org.apache.phoenix.query.QueryServices;
import org.apache.phoenix.schema.PIndexState;
import org.apache.phoenix.util.PhoenixRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code CREATE INDEX ... ASYNC} on a transactional table (docs/compatibility.md, "ASYNC indexes"). Phoenix's
 * IndexTool reads the data table without a snapshot and writes at a timestamp the TM never issued, and the ASYNC
 * statement takes no fence: the provider refuses IndexTool's writes (its job fails, the index stays empty and
 * BUILDING). {@code TransactionalIndexTool} runs the same job at a fence of the TM. {@code ALTER INDEX ... REBUILD} builds the index through Phoenix's synchronous path: a fence at the TM
 * (a writer that began before it aborts with 523) and a population at the fence, so the index equals the table,
 * rows of rolled-back transactions excluded.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AsyncIndexIT {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final int ROWS = 40;

    @Test
    void indexToolIsRefusedOnATransactionalTableAndWritesNothing() throws Exception {
        String table = "ASYNC_TOOL_" + TABLES.incrementAndGet();
        String index = table + "_I";
        createLoadedTableWithAsyncIndex(table, index);
        Configuration conf = toolConfiguration();

        // IndexTool's writer, called as its mapper calls it: refused with the way that works
        Configuration writerConf = new Configuration(conf);
        writerConf.set(TableOutputFormat.OUTPUT_TABLE, index);
        writerConf.set(PhoenixConfigurationUtil.TX_SCN_VALUE, Long.toString(System.currentTimeMillis() * 1_000_000L));
        writerConf.set(PhoenixConfigurationUtil.TX_PROVIDER, "OMID");
        DirectHTableWriter writer = new DirectHTableWriter(writerConf);
        Put put = new Put(Bytes.toBytes("x")).addColumn(Bytes.toBytes("0"), Bytes.toBytes("q"), Bytes.toBytes("v"));
        UnsupportedOperationException refused;
        try {
            refused = assertThrows(UnsupportedOperationException.class, () -> writer.write(List.of(put)));
        } finally {
            writer.close();
        }
        assertTrue(refused.getMessage().contains("ALTER INDEX <index> ON <table> REBUILD"), refused.getMessage());

        // the whole tool: its MapReduce job (local runner, this JVM) fails on the refusal
        int status;
        boolean refusedInTheJob;
        List<String> traces;
        try (LogCapture log = LogCapture.start()) {
            IndexTool tool = new IndexTool();
            tool.setConf(conf);
            status = tool.run(new String[] {"--data-table=" + table, "--index-table=" + index, "-runfg",
                    "-op", "/tmp/" + UUID.randomUUID()});
            // Refused at its first row read below the GC horizon (its timestamp, the index's creation millisecond,
            // is held by nothing) or, if the region server's horizon is not past it yet, at its first write.
            refusedInTheJob = log.traceContains("IndexTool cannot build an index of a transactional")
                    || log.traceContains("Refused Phoenix's MapReduce scan");
            traces = log.traces();
        }
        assertNotEquals(0, status, "IndexTool's job must fail");
        assertTrue(refusedInTheJob, "the job failed on the refusal, not on something else: " + traces);
        assertEquals(0, SharedStack.rawRows(index), "IndexTool wrote nothing to the index");
        assertEquals(PIndexState.BUILDING, indexState(index));
    }

    /**
     * TransactionalIndexTool (Phoenix's IndexTool with our fence semantics) builds an ASYNC index through the MapReduce
     * job (local runner, this JVM): a writer that began before the tool and whose tentative cells are on disk during
     * the job's scan aborts at commit (523) and its row stays out of the index; the rolled-back row stays out; a
     * writer that began and committed after the fence (from the fence hook, before the job reads) keeps its update
     * and delete in the index, above the index rows the job writes at the fence. The index ends ACTIVE and equal to
     * the table, and later writers maintain it.
     */
    @Test
    void transactionalIndexToolBuildsAnAsyncIndexAtItsFence() throws Exception {
        String table = "ASYNC_TXTOOL_" + TABLES.incrementAndGet();
        String index = table + "_I";
        createLoadedTableWithAsyncIndex(table, index);
        Configuration conf = toolConfiguration();
        String out = "/tmp/" + UUID.randomUUID();

        IllegalArgumentException background = assertThrows(IllegalArgumentException.class,
                () -> tool(conf).run(new String[] {"--data-table=" + table, "--index-table=" + index, "-op", out}));
        assertTrue(background.getMessage().contains("-runfg is required"), background.getMessage());
        IllegalArgumentException split = assertThrows(IllegalArgumentException.class,
                () -> tool(conf).run(new String[] {"--data-table=" + table, "--index-table=" + index, "-runfg",
                        "-spa", "2", "-op", out}));
        assertTrue(split.getMessage().contains("--split and --autosplit"), split.getMessage());

        AtomicLong fenceSeen = new AtomicLong(-1);
        AtomicReference<Throwable> afterFenceWriter = new AtomicReference<>();
        IndexBuildHooks previous = IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterFence(String physicalTable, long fence) {
                if (!physicalTable.equals(table)) {
                    return;
                }
                fenceSeen.set(fence);
                try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.executeUpdate("UPSERT INTO " + table + " VALUES (9, 'after-fence')");
                    s.executeUpdate("DELETE FROM " + table + " WHERE K = 10");
                    c.commit();
                } catch (Throwable t) {
                    afterFenceWriter.set(t);
                }
            }
        });
        try (Connection writer = SharedStack.connect(); Statement w = writer.createStatement()) {
            writer.setAutoCommit(false);
            // began before the fence, its tentative cells on disk while the job scans
            IndexChecks.rows(writer, "SELECT K, V FROM " + table + " WHERE K = 7");
            w.executeUpdate("UPSERT INTO " + table + " VALUES (7, 'before-fence')");
            w.executeUpdate("UPSERT INTO " + table + " VALUES (2000, 'pending')");
            writer.unwrap(PhoenixConnection.class).getMutationState().send();

            int status = tool(conf).run(new String[] {"--data-table=" + table, "--index-table=" + index, "-runfg",
                    "-op", out});

            assertEquals(0, status, "TransactionalIndexTool's job succeeds");
            assertTrue(fenceSeen.get() > 0, "the tool drew a fence on the data table");
            assertNull(afterFenceWriter.get(), "the writer after the fence committed");
            SQLException fenced = assertThrows(SQLException.class, writer::commit);
            assertEquals(523, fenced.getErrorCode(), fenced.toString());
            writer.rollback();
        } finally {
            IndexBuildHooks.install(previous);
        }
        assertEquals(PIndexState.ACTIVE, indexState(index));
        Map<Long, String> rows = IndexChecks.assertIndexEqualsTable(table, index, "K, V");
        assertEquals(ROWS - 1, rows.size(), "K = 10 deleted after the fence");
        assertEquals("v7", rows.get(7L));
        assertEquals("after-fence", rows.get(9L));
        assertFalse(rows.containsKey(1000L) || rows.containsKey(2000L), "rolled-back and aborted rows stay out");

        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (7, 'after-build')");
            s.executeUpdate("DELETE FROM " + table + " WHERE K = 8");
            c.commit();
        }
        rows = IndexChecks.assertIndexEqualsTable(table, index, "K, V");
        assertEquals("after-build", rows.get(7L));
        assertFalse(rows.containsKey(8L));
    }

    /**
     * An index that was ACTIVE and then disabled may hold rows of values changed since, which rows written at a fence
     * would not remove: the tool refuses it before drawing any fence (no writer of the table is aborted).
     */
    @Test
    void anIndexDisabledAfterItWasActiveIsRefusedBeforeAnyFence() throws Exception {
        String table = "ASYNC_TXDISABLED_" + TABLES.incrementAndGet();
        String index = table + "_I";
        createLoadedTableWithAsyncIndex(table, index);
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER INDEX " + index + " ON " + table + " REBUILD");
            s.execute("ALTER INDEX " + index + " ON " + table + " DISABLE");
        }
        AtomicLong fences = new AtomicLong();
        IndexBuildHooks previous = IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterFence(String physicalTable, long fence) {
                if (physicalTable.equals(table)) {
                    fences.incrementAndGet();
                }
            }
        });
        try {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> tool(toolConfiguration()).run(new String[] {"--data-table=" + table,
                            "--index-table=" + index, "-runfg", "-op", "/tmp/" + UUID.randomUUID()}));
            assertTrue(refused.getMessage().contains("is DISABLE") && refused.getMessage().contains("REBUILD"),
                    refused.getMessage());
        } finally {
            IndexBuildHooks.install(previous);
        }
        assertEquals(0, fences.get(), "refused before any fence");
    }

    /**
     * The map tasks read at the build's fence, safe only while the TM holds it (the GC horizon stays at or below it).
     * Here the TM drops the fence right after it is drawn (as it would once the tool's process stopped renewing it
     * past the lease): the map task's check after its batch fails the job, and the index stays BUILDING, never ACTIVE.
     */
    @Test
    void aBuildWhoseFenceTheTmNoLongerHoldsFailsAndLeavesTheIndexBuilding() throws Exception {
        String table = "ASYNC_TXLAPSE_" + TABLES.incrementAndGet();
        String index = table + "_I";
        createLoadedTableWithAsyncIndex(table, index);
        Configuration conf = toolConfiguration();
        AtomicReference<Throwable> dropFailed = new AtomicReference<>();
        IndexBuildHooks previous = IndexBuildHooks.install(new IndexBuildHooks() {
            @Override
            public void afterFence(String physicalTable, long fence) {
                if (physicalTable.equals(table)) {
                    try {
                        SharedStack.get().transactionManager().finished(new long[] {fence});
                    } catch (Throwable t) {
                        dropFailed.set(t);
                    }
                }
            }
        });
        int status;
        boolean lapseReported;
        try (LogCapture log = LogCapture.start()) {
            status = tool(conf).run(new String[] {"--data-table=" + table, "--index-table=" + index, "-runfg",
                    "-op", "/tmp/" + UUID.randomUUID()});
            lapseReported = log.traceContains("the TM no longer holds the fence");
        } finally {
            IndexBuildHooks.install(previous);
        }
        assertNull(dropFailed.get());
        assertNotEquals(0, status, "the job fails");
        assertTrue(lapseReported, "on the map task's check of the fence");
        assertEquals(PIndexState.BUILDING, indexState(index));
    }

    /** The stack's configuration with transactions on, as an IndexTool run on this cluster needs it. */
    private static Configuration toolConfiguration() {
        Configuration conf = new Configuration(SharedStack.get().configuration());
        conf.set(QueryServices.TRANSACTIONS_ENABLED, "true");
        return conf;
    }

    private static TransactionalIndexTool tool(Configuration conf) {
        TransactionalIndexTool tool = new TransactionalIndexTool();
        tool.setConf(new Configuration(conf));
        return tool;
    }

    @Test
    void alterIndexRebuildBuildsAnAsyncIndexAtAFence() throws Exception {
        String table = "ASYNC_REBUILD_" + TABLES.incrementAndGet();
        String index = table + "_I";
        createLoadedTableWithAsyncIndex(table, index);
        try (Connection writer = SharedStack.connect(); Connection ddl = SharedStack.connect();
             Statement w = writer.createStatement(); Statement d = ddl.createStatement()) {
            writer.setAutoCommit(false);
            // began before the rebuild's fence, after the index exists (it maintains the index)
            IndexChecks.rows(writer, "SELECT K, V FROM " + table + " WHERE K = 7");
            w.executeUpdate("UPSERT INTO " + table + " VALUES (7, 'before-fence')");

            d.execute("ALTER INDEX " + index + " ON " + table + " REBUILD");

            SQLException fenced = assertThrows(SQLException.class, writer::commit);
            assertEquals(523, fenced.getErrorCode(), fenced.toString());
            writer.rollback();
            assertEquals(PIndexState.ACTIVE, indexState(index));
            Map<Long, String> rows = IndexChecks.assertIndexEqualsTable(table, index, "K, V");
            assertEquals(ROWS, rows.size());
            assertFalse(rows.containsKey(1000L), "the rolled-back row stays out of table and index");
            assertEquals("v7", rows.get(7L));

            // writers after the build maintain it
            w.executeUpdate("UPSERT INTO " + table + " VALUES (7, 'after')");
            w.executeUpdate("DELETE FROM " + table + " WHERE K = 8");
            writer.commit();
            rows = IndexChecks.assertIndexEqualsTable(table, index, "K, V");
            assertEquals("after", rows.get(7L));
            assertFalse(rows.containsKey(8L));
        }
    }

    /** ROWS committed rows, one rolled-back row (its tentative cells stay on disk), then CREATE INDEX ... ASYNC. */
    private static void createLoadedTableWithAsyncIndex(String table, String index) throws SQLException {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            c.setAutoCommit(false);
            for (int k = 0; k < ROWS; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "')");
            }
            c.commit();
            s.executeUpdate("UPSERT INTO " + table + " VALUES (1000, 'rolled-back')");
            c.unwrap(PhoenixConnection.class).getMutationState().send(); // its cells reach the region server
            c.rollback();
            c.setAutoCommit(true);
            s.execute("CREATE INDEX " + index + " ON " + table + " (V) ASYNC");
            assertEquals(PIndexState.BUILDING, indexState(index));
        }
    }

    private static PIndexState indexState(String index) throws SQLException {
        try (Connection c = SharedStack.connect()) {
            return PhoenixRuntime.getTableNoCache(c, index).getIndexState();
        }
    }
}
