package io.phoenixtxn.it.gc;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.ResolutionCounters;
import io.phoenixtxn.coprocessor.CommitCellHealer;
import io.phoenixtxn.coprocessor.GcCounters;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.gc.Txns.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compaction-time garbage collection on the minicluster: what a compaction keeps below the GC horizon, that every
 * live snapshot reads the same before and after, and what it does with writers whose fate is open (undecided,
 * crashed, stalled past their lease), deletes, TTL, tables that are not transactional and an unreachable commit
 * table. The region server's horizon moves only when a test refreshes it; compactions run only when a test asks.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CompactionGcIT {
    private static GcStack stack;
    private static Txns txns;

    @BeforeAll
    static void setUp() throws Exception {
        stack = GcStack.get();
        stack.awaitNoOpenTransactions();
        txns = stack.client();
    }

    @AfterAll
    static void tearDown() {
        if (txns != null) {
            txns.close();
        }
    }

    @AfterEach
    void noHooks() {
        ProtocolHooks.install(ProtocolHooks.NONE);
    }

    @Test
    void aLongReaderKeepsItsValueThroughThousandsOfUpdatesThenTheRowShrinksToItsNewestVersion() throws Exception {
        // 3,000 commits: far past any version limit of the family (Phoenix keeps every version of a transactional
        // table), at a third of the 10,000 this test once ran (each commit is a few ms; the CI budget is 45 min).
        int updates = 3_000;
        TableName name = stack.createTable("HOT");
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r", "v0");
            Transaction reader = txns.begin();
            assertEquals("v0", read(table, reader, "r"));
            Transaction last = null;
            for (int i = 1; i <= updates; i++) {
                last = txns.commitValue(table, "r", "v" + i);
                if (i % 500 == 0) {
                    txns.keepAlive(reader); // the client will do this by itself
                }
            }
            stack.flush(name);
            Horizon horizon = GcStack.refreshHorizon();
            assertEquals(reader.txId(), horizon.gc(), "the open reader holds the horizon");
            stack.majorCompact(name);
            assertEquals("v0", read(table, reader, "r"), "the long reader lost its version");
            assertTrue(stack.rawCells(name, Bytes.toBytes("r")).size() >= 2 * updates,
                    "versions committed after the reader began are kept");

            txns.finished(reader);
            GcStack.awaitHorizonAbove(last.commitTs());
            stack.majorCompact(name);
            Map<String, Integer> perColumn = cellsPerColumn(stack.rawCells(name, Bytes.toBytes("r")));
            assertTrue(perColumn.values().stream().allMatch(n -> n <= 3), "raw cells per column: " + perColumn);
            Transaction after = txns.begin();
            assertEquals("v" + updates, read(table, after, "r"));
            txns.finished(after);
        }
    }

    @Test
    void aRowThatOutgrewTheRowBufferIsCollectedInTwoPassesAroundALongReaderAndAnUndecidedWriter() throws Exception {
        // A bound of 50 cells stands for the default 100,000: this row's history outgrows it as a hot row's would.
        TableName name = stack.createTable("OVERSIZED", f -> f, t -> t.setValue("phoenix.txn.gc.row.max.cells", "50"));
        long streamedBefore = GcCounters.rowsStreamed();
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r", "v0");
            Transaction reader = txns.begin();
            assertEquals("v0", read(table, reader, "r"));
            Transaction last = null;
            for (int i = 1; i <= 400; i++) {
                if (i % 10 == 0) { // every tenth update rolled back
                    Transaction rolledBack = txns.begin();
                    table.put(rolledBack, new Put(Bytes.toBytes("r")).addColumn(GcStack.FAMILY, GcStack.Q,
                            Bytes.toBytes("rolled back " + i)));
                    txns.client().abort(rolledBack);
                    txns.finished(rolledBack);
                } else {
                    last = txns.commitValue(table, "r", "v" + i);
                }
            }
            stack.flush(name);
            assertEquals(reader.txId(), GcStack.refreshHorizon().gc(), "the open reader holds the horizon");
            stack.majorCompact(name);
            assertTrue(GcCounters.rowsStreamed() > streamedBefore, "the row was decided in two passes");
            assertEquals("v0", read(table, reader, "r"), "the long reader lost its version");
            assertTrue(stack.rawCells(name, Bytes.toBytes("r")).size() >= 2 * 360,
                    "versions committed after the reader began are kept");

            txns.finished(reader);
            Transaction undecided = txns.begin();
            table.put(undecided, new Put(Bytes.toBytes("r")).addColumn(GcStack.FAMILY, GcStack.Q,
                    Bytes.toBytes("undecided")));
            GcStack.awaitHorizonAbove(last.commitTs());
            stack.flush(name);
            long streamedBeforeSecond = GcCounters.rowsStreamed();
            stack.majorCompact(name);
            assertTrue(GcCounters.rowsStreamed() > streamedBeforeSecond, "the row was decided in two passes");
            List<Cell> raw = stack.rawCells(name, Bytes.toBytes("r"));
            assertEquals(1, raw.stream().filter(c -> TimestampLayout.txIdOf(c.getTimestamp()) == undecided.txId())
                    .count(), "the undecided writer's tentative cell survives: " + raw);
            Map<String, Integer> perColumn = cellsPerColumn(raw);
            assertTrue(perColumn.values().stream().allMatch(n -> n <= 3), "raw cells per column: " + perColumn);
            Transaction after = txns.begin();
            assertEquals("v399", read(table, after, "r"));
            txns.finished(after);
            txns.commit(undecided);
            Transaction afterCommit = txns.begin();
            assertEquals("undecided", read(table, afterCommit, "r"), "its later commit is visible");
            txns.finished(afterCommit);
        }
    }

    @Test
    void anUndecidedWritersTentativeCellsSurviveAndItsLaterCommitIsVisible() throws Exception {
        TableName name = stack.createTable("UNDECIDED");
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r", "v0");
            Transaction v1 = txns.commitValue(table, "r", "v1");
            Transaction writer = txns.begin();
            table.put(writer, new Put(Bytes.toBytes("r")).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes("w")));
            Horizon horizon = GcStack.refreshHorizon();
            assertTrue(horizon.gc() > v1.commitTs() && horizon.gc() <= writer.txId(), horizon.toString());

            stack.flush(name);
            stack.majorCompact(name);
            List<Cell> raw = stack.rawCells(name, Bytes.toBytes("r"));
            assertEquals(1, raw.stream().filter(c -> TimestampLayout.txIdOf(c.getTimestamp()) == writer.txId())
                    .count(), "the undecided writer's tentative cell: " + raw);
            assertEquals(3, raw.size(), "v0 and its commit cell were collected, v1 (and commit cell) kept: " + raw);

            txns.commit(writer);
            Transaction after = txns.begin();
            assertEquals("w", read(table, after, "r"));
            txns.finished(after);
        }
    }

    /**
     * Also the region server's metrics, read through JMX as an operator's {@code /jmx} shows them: the reader's
     * pending-version resolution, TM question, wait and force-abort, the compaction's dropped cells, and a reader's
     * healed commit cell each raise their count.
     */
    @Test
    void aCrashedWriterThatAReaderInvalidatedLosesItsCellsAndItsMarker() throws Exception {
        TableName name = stack.createTable("INVALIDATED");
        long resolvedBefore = ResolutionCounters.pendingVersionsResolved();
        long queriesBefore = ResolutionCounters.statusQueries();
        long waitsBefore = ResolutionCounters.waits();
        long forceAbortsBefore = ResolutionCounters.forceAborts();
        long healedBefore = ResolutionCounters.commitCellsHealed();
        long droppedBefore = GcCounters.cellsDropped();
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r", "v0");
            Transaction writer = txns.begin();
            table.put(writer, new Put(Bytes.toBytes("r")).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes("w")));
            ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterTmDecision(long txId, long commitTs) throws IOException {
                    if (txId == writer.txId()) {
                        throw new IOException("client crashed after the TM decision (test)");
                    }
                }
            });
            assertThrows(IOException.class, () -> txns.commit(writer)); // ends it at the TM, as its lease would
            ProtocolHooks.install(ProtocolHooks.NONE);

            Transaction reader = txns.begin();
            assertEquals("v0", read(table, reader, "r"), "the reader force-aborts the decided, crashed writer");
            txns.finished(reader);
            CommitTable commitTable = txns.client().commitTable();
            assertEquals(CommitTable.Entry.INVALIDATED, commitTable.lookup(writer.txId()));

            GcStack.awaitCommitPointSafeAbove(writer.txId());
            stack.flush(name);
            stack.majorCompact(name);
            assertTrue(stack.rawCells(name, Bytes.toBytes("r")).stream()
                    .noneMatch(c -> TimestampLayout.txIdOf(c.getTimestamp()) == writer.txId()), "its cells are gone");
            GcStack.await(() -> commitTable.lookup(writer.txId()).state() == CommitTable.Entry.State.ABSENT
                    ? Boolean.TRUE : null, "the invalid marker of " + writer.txId() + " to be deleted");
            Transaction after = txns.begin();
            assertEquals("v0", read(table, after, "r"), "a marker-less writer below the horizon reads as aborted");
            txns.finished(after);

            // A writer that crashed after its commit point: a reader resolves it through the commit table and heals
            // its commit cell.
            Transaction crashed = txns.begin();
            table.put(crashed, new Put(Bytes.toBytes("h")).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes("c")));
            ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterCommitPoint(long txId, long commitTs) throws IOException {
                    if (txId == crashed.txId()) {
                        throw new IOException("client crashed after its commit point (test)");
                    }
                }
            });
            assertThrows(IOException.class, () -> txns.commit(crashed));
            ProtocolHooks.install(ProtocolHooks.NONE);
            Transaction healer = txns.begin();
            assertEquals("c", read(table, healer, "h"));
            txns.finished(healer);
            assertTrue(CommitCellHealer.awaitQueued(60, TimeUnit.SECONDS));
        }
        assertTrue(ResolutionCounters.forceAborts() > forceAbortsBefore);
        assertTrue(ResolutionCounters.commitCellsHealed() > healedBefore);
        assertTrue(GcCounters.cellsDropped() > droppedBefore);
        // JMX serves a cached reading (refreshed every metrics period): wait until it shows this test's counts.
        awaitRegionServerMetric("PendingVersionsResolved", resolvedBefore + 2);
        awaitRegionServerMetric("TmStatusQueries", queriesBefore + 1);
        awaitRegionServerMetric("PendingWaits", waitsBefore + 1);
        awaitRegionServerMetric("ForceAborts", forceAbortsBefore + 1);
        awaitRegionServerMetric("CommitCellsHealed", healedBefore + 1);
        awaitRegionServerMetric("GcCellsDropped", droppedBefore + 1);
    }

    /** Waits until the region server's phoenix-txn bean in JMX reports at least {@code atLeast} for a counter. */
    private static void awaitRegionServerMetric(String attribute, long atLeast) throws InterruptedException {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        GcStack.await(() -> {
            Set<ObjectName> beans = jmx.queryNames(new ObjectName("Hadoop:name=RegionServer,sub=PhoenixTxn,*"), null);
            assertEquals(1, beans.size(), "one phoenix-txn metrics bean per region-server JVM: " + beans);
            long value = ((Number) jmx.getAttribute(beans.iterator().next(), attribute)).longValue();
            return value >= atLeast ? Boolean.TRUE : null;
        }, "region-server metric " + attribute + " >= " + atLeast + " in JMX");
    }

    @Test
    void aWriterStalledPastItsLeaseBeforeItsCommitPointIsForceAbortedByGcAndCannotCommit() throws Exception {
        TableName name = stack.createTable("STALLED");
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r", "v0");
            Transaction writer = txns.begin();
            table.put(writer, new Put(Bytes.toBytes("r")).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes("w")));
            CountDownLatch decided = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterTmDecision(long txId, long commitTs) {
                    if (txId == writer.txId()) {
                        decided.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            });
            CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
                try {
                    txns.client().commit(writer);
                } catch (IOException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            assertTrue(decided.await(60, TimeUnit.SECONDS));
            stack.expire(writer); // its lease runs out while it stalls before its commit point

            Horizon horizon = GcStack.refreshHorizon();
            assertTrue(horizon.gc() > writer.txId() && horizon.commitPointSafe() <= writer.txId(),
                    "the writer is below the GC horizon and may still write its commit point: " + horizon);
            stack.flush(name);
            stack.majorCompact(name);
            CommitTable commitTable = txns.client().commitTable();
            assertEquals(CommitTable.Entry.INVALIDATED, commitTable.lookup(writer.txId()), "GC force-aborted it");
            assertTrue(stack.rawCells(name, Bytes.toBytes("r")).stream()
                    .noneMatch(c -> TimestampLayout.txIdOf(c.getTimestamp()) == writer.txId()), "its cells are gone");

            release.countDown();
            Exception failed = assertThrows(Exception.class, commit::join);
            TxnAbortedException aborted = assertInstanceOf(TxnAbortedException.class, failed.getCause());
            assertEquals(AbortReason.INVALIDATED, aborted.reason());
            Transaction after = txns.begin();
            assertEquals("v0", read(table, after, "r"));
            txns.finished(after);
        }
    }

    @Test
    void rowsAndColumnsDeletedBelowTheHorizonDisappear() throws Exception {
        byte[] q2 = Bytes.toBytes("w");
        TableName name = stack.createTable("DELETES");
        try (TransactionalTable table = txns.table(name)) {
            for (String row : List.of("a", "b", "c")) {
                Transaction tx = txns.begin();
                table.put(tx, new Put(Bytes.toBytes(row)).addColumn(GcStack.FAMILY, GcStack.Q, Bytes.toBytes("x"))
                        .addColumn(GcStack.FAMILY, q2, Bytes.toBytes("y")));
                txns.commit(tx);
            }
            Transaction deleteRow = txns.begin();
            table.delete(deleteRow, new Delete(Bytes.toBytes("a")));
            txns.commit(deleteRow);
            Transaction deleteColumn = txns.begin();
            table.delete(deleteColumn, new Delete(Bytes.toBytes("b")).addColumns(GcStack.FAMILY, GcStack.Q));
            txns.commit(deleteColumn);
            stack.flush(name);
            // A write in the memstore: the compaction does not hold every cell of the store, so before dropping a
            // delete it looks for older versions outside its input.
            Transaction later = txns.commitValue(table, "d", "z");
            GcStack.awaitHorizonAbove(later.commitTs());

            stack.majorCompact(name);
            assertEquals(List.of(), stack.rawCells(name, Bytes.toBytes("a")), "the deleted row");
            Map<String, Integer> b = cellsPerColumn(stack.rawCells(name, Bytes.toBytes("b")));
            assertEquals(Map.of("w", 2), b, "only the column that was not deleted, with its commit cell");
            assertEquals(4, stack.rawCells(name, Bytes.toBytes("c")).size());

            Transaction reader = txns.begin();
            Result a = table.get(reader, new Get(Bytes.toBytes("a")));
            assertTrue(a.isEmpty(), a.toString());
            assertEquals(null, read(table, reader, "b"));
            assertEquals("y", Bytes.toString(table.get(reader, new Get(Bytes.toBytes("b"))).getValue(GcStack.FAMILY,
                    q2)));
            assertEquals("x", read(table, reader, "c"));
            txns.finished(reader);
        }
    }

    @Test
    void aTtlExpiresDataAndCommitCellsTogether() throws Exception {
        int ttlSeconds = 2;
        TableName name = stack.createTable("TTL", f -> f.setTimeToLive(ttlSeconds));
        try (TransactionalTable table = txns.table(name)) {
            Transaction old = txns.commitValue(table, "old", "expires");
            long oldMillis = TimestampLayout.millisOf(old.commitTs());
            GcStack.await(() -> {
                txns.finished(txns.begin()); // the horizon follows the TM's clock as transactions begin
                Horizon h = GcStack.refreshHorizon();
                return TimestampLayout.millisOf(h.gc()) - ttlSeconds * 1_000L > oldMillis ? h : null;
            }, "the horizon to be more than the TTL past the old commit");
            Transaction fresh = txns.commitValue(table, "fresh", "stays");
            Horizon horizon = GcStack.refreshHorizon();
            assertTrue(TimestampLayout.millisOf(horizon.gc()) - ttlSeconds * 1_000L
                    <= TimestampLayout.millisOf(fresh.commitTs()), "precondition: the fresh value is within the TTL");
            stack.flush(name);
            stack.majorCompact(name);
            assertEquals(List.of(), stack.rawCells(name, Bytes.toBytes("old")), "data and commit cell expired");
            assertEquals(2, stack.rawCells(name, Bytes.toBytes("fresh")).size());
            Transaction reader = txns.begin();
            assertEquals(null, read(table, reader, "old"));
            assertEquals("stays", read(table, reader, "fresh"));
            txns.finished(reader);
        }
    }

    /**
     * Found in review: readers did not apply the TTL, GC did. A snapshot that began after a value expired read it,
     * and read nothing once a compaction collected it: a non-repeatable read. Readers now take the TTL at their
     * snapshot's start, the same rule GC takes at its horizon (FamilyTtl).
     */
    @Test
    void aSnapshotThatBeginsAfterAValueExpiredNeverSeesItWhetherOrNotGcRan() throws Exception {
        int ttlSeconds = 2;
        TableName name = stack.createTable("TTLREAD", f -> f.setTimeToLive(ttlSeconds));
        try (TransactionalTable table = txns.table(name)) {
            Transaction old = txns.commitValue(table, "old", "expires");
            long oldMillis = TimestampLayout.millisOf(old.commitTs());
            Transaction reader = GcStack.await(() -> {
                Transaction candidate = txns.begin();
                if (TimestampLayout.millisOf(candidate.txId()) - ttlSeconds * 1_000L > oldMillis) {
                    return candidate;
                }
                txns.finished(candidate);
                return null;
            }, "a reader that begins more than the TTL after the old commit");
            assertEquals(null, read(table, reader, "old"), "expired at the reader's start");
            GcStack.await(() -> {
                Horizon h = GcStack.refreshHorizon();
                return TimestampLayout.millisOf(h.gc()) - ttlSeconds * 1_000L > oldMillis ? h : null;
            }, "the horizon (held by the reader) to be more than the TTL past the old commit");
            stack.flush(name);
            stack.majorCompact(name);
            assertEquals(List.of(), stack.rawCells(name, Bytes.toBytes("old")), "collected");
            assertEquals(null, read(table, reader, "old"), "the same answer after GC");
            txns.finished(reader);
        }
    }

    @Test
    void aTableWithoutOurObserversIsUntouched() throws Exception {
        TableName name = TableName.valueOf("PLAIN_HBASE_" + System.nanoTime() % 100_000);
        try (Admin admin = stack.hbase().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name).setColumnFamily(ColumnFamilyDescriptorBuilder
                    .newBuilder(GcStack.FAMILY).setMaxVersions(Integer.MAX_VALUE).build()).build());
        }
        try (Table table = stack.hbase().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int v = 1; v <= 50; v++) {
                // Old versions and cells shaped like ours (commit qualifiers, tombstones, family deletes).
                puts.add(new Put(Bytes.toBytes("r")).addColumn(GcStack.FAMILY, GcStack.Q, v, Bytes.toBytes("v" + v))
                        .addColumn(GcStack.FAMILY, OnDiskLayout.commitQualifier(GcStack.Q), v, Bytes.toBytes(v + 1L))
                        .addColumn(GcStack.FAMILY, OnDiskLayout.FAMILY_DELETE_QUALIFIER, v, new byte[0]));
            }
            table.put(puts);
        }
        Transaction tick = txns.begin();
        txns.finished(tick);
        GcStack.awaitHorizonAbove(tick.txId());
        stack.flush(name);
        stack.majorCompact(name);
        assertEquals(150, stack.rawCellCount(name));
    }

    @Test
    void anUnreachableCommitTableKeepsEverythingItCannotResolve() throws Exception {
        TableName name = stack.createTable("CT_DOWN");
        try (TransactionalTable table = txns.table(name)) {
            txns.commitValue(table, "r1", "v0");
            Transaction crashedAfterCommitPoint = txns.begin();
            table.put(crashedAfterCommitPoint, new Put(Bytes.toBytes("r1")).addColumn(GcStack.FAMILY, GcStack.Q,
                    Bytes.toBytes("v1")));
            Transaction crashedBefore = txns.begin();
            table.put(crashedBefore, new Put(Bytes.toBytes("r2")).addColumn(GcStack.FAMILY, GcStack.Q,
                    Bytes.toBytes("never")));
            ProtocolHooks.install(new ProtocolHooks() {
                @Override
                public void afterCommitPoint(long txId, long commitTs) throws IOException {
                    throw new IOException("client crashed after its commit point (test)");
                }

                @Override
                public void afterTmDecision(long txId, long commitTs) throws IOException {
                    if (txId == crashedBefore.txId()) {
                        throw new IOException("client crashed before its commit point (test)");
                    }
                }
            });
            assertThrows(IOException.class, () -> txns.commit(crashedAfterCommitPoint));
            assertThrows(IOException.class, () -> txns.commit(crashedBefore));
            ProtocolHooks.install(ProtocolHooks.NONE);
            GcStack.awaitCommitPointSafeAbove(crashedBefore.txId());
            stack.flush(name);
            long before = stack.rawCellCount(name);

            TableName commitTable = TableName.valueOf(txns.client().config().commitTable());
            try (Admin admin = stack.hbase().getAdmin()) {
                admin.disableTable(commitTable);
                try {
                    stack.majorCompact(name);
                    assertEquals(before, stack.rawCellCount(name), "versions it could not resolve were kept");
                } finally {
                    admin.enableTable(commitTable);
                }
            }

            stack.majorCompact(name);
            assertEquals(1, stack.rawCellCount(name), "only v1 (committed, no commit cell yet): v0 and its commit"
                    + " cell, and the crashed writer's cell, are collected once the commit table answers");
            Transaction reader = txns.begin();
            assertEquals("v1", read(table, reader, "r1"));
            assertEquals(null, read(table, reader, "r2"));
            txns.finished(reader);
        }
    }

    /** Raw cells per column, commit cells counted with their column. */
    private static Map<String, Integer> cellsPerColumn(List<Cell> cells) {
        Map<String, Integer> perColumn = new TreeMap<>();
        for (Cell c : cells) {
            byte[] q = OnDiskLayout.isCommitCell(c) ? OnDiskLayout.dataQualifierOf(c) : CellUtil.cloneQualifier(c);
            perColumn.merge(Bytes.toString(q), 1, Integer::sum);
        }
        return perColumn;
    }
}
