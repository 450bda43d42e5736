package io.phoenixtxn.it.client;

import io.phoenixtxn.client.BulkLoads;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.ClientFixture;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.ClientFixture.FAMILY;
import static io.phoenixtxn.it.ClientFixture.QUALIFIER;
import static io.phoenixtxn.it.ClientFixture.read;
import static io.phoenixtxn.it.ClientFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bulk-load protocol at the HBase level ({@link BulkLoads}; docs/design.md, "Bulk load"), each step forced in
 * order: files land as the load's pending writes, readers (those begun before the load, during it and after its
 * commit) see all of it or nothing, the TM holds the table meanwhile, an abandoned load leaves nothing, and region
 * servers admit only files at one live load's version.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BulkLoadProtocolIT {
    private static TxnClient client;
    private static BulkLoads loads;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientFixture.client(TxnClientConfig.PostCommitMode.SYNC);
        loads = client.bulkLoads();
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @Test
    void readersSeeALoadWhollyOrNotAtAllAndItsLandedFilesStayPendingUntilItsCommitPoint() throws Exception {
        TableName name = ClientFixture.createTable("BULKP");
        try (TransactionalTable table = client.table(name)) {
            Transaction beforeLoad = client.begin();
            assertNull(read(table, beforeLoad, "a"));
            Transaction load = loads.begin(List.of(name));
            land(name, load.txId(), "a", "b");

            Transaction duringLoad = client.begin();
            assertNull(read(table, duringLoad, "a"), "landed but not committed: a pending writer's cell");
            assertNull(read(table, duringLoad, "b"));
            long commitTs = loads.commit(load, List.of(name)); // the readers above did not force-abort it
            assertTrue(commitTs > duringLoad.txId());

            assertNull(read(table, beforeLoad, "a"), "a snapshot from before the load never sees it");
            assertNull(read(table, duringLoad, "b"), "nor one taken before its commit point");
            Transaction afterCommit = client.begin();
            assertEquals("a@load", read(table, afterCommit, "a"), "through the load's commit-table entry");
            assertEquals("b@load", read(table, afterCommit, "b"));

            assertEquals(2, loads.writeCommitCells(load.txId(), commitTs, List.of(name)));
            assertEquals(CommitTable.Entry.State.ABSENT, client.commitTable().lookup(load.txId()).state(),
                    "the entry goes once the commit cells are written");
            Transaction afterCells = client.begin();
            assertEquals("a@load", read(table, afterCells, "a"), "through its commit cell");
            assertEquals(4, rawCells(name), "two loaded cells, two commit cells");
            for (Transaction tx : List.of(beforeLoad, duringLoad, afterCommit, afterCells)) {
                client.abort(tx);
            }
        }
    }

    @Test
    void theTableTakesNoOtherWriterUntilTheLoadEndsNorOneThatMissedIt() throws Exception {
        TableName name = ClientFixture.createTable("BULKH");
        try (TransactionalTable table = client.table(name)) {
            Transaction load = loads.begin(List.of(name));
            Transaction duringLoad = client.begin();
            write(table, duringLoad, "c", "during");
            TxnAbortedException held = assertThrows(TxnAbortedException.class, () -> client.commit(duringLoad));
            assertEquals(AbortReason.FENCE, held.reason());

            Transaction missedIt = client.begin();
            land(name, load.txId(), "c");
            loads.commit(load, List.of(name));
            write(table, missedIt, "c", "missed");
            assertEquals(AbortReason.FENCE, assertThrows(TxnAbortedException.class,
                    () -> client.commit(missedIt)).reason(), "it began before the load's commit: fenced");

            Transaction sawIt = client.begin();
            assertEquals("c@load", read(table, sawIt, "c"));
            write(table, sawIt, "c", "after");
            client.commit(sawIt);
        }
    }

    @Test
    void anAbandonedLoadLeavesNothingVisibleAndReleasesItsTable() throws Exception {
        TableName name = ClientFixture.createTable("BULKA");
        try (TransactionalTable table = client.table(name)) {
            Transaction load = loads.begin(List.of(name));
            land(name, load.txId(), "d");
            loads.abandon(load); // e.g. the index table's files failed to land
            Transaction reader = client.begin();
            assertNull(read(table, reader, "d"), "the landed cell is not visible");
            commitOnceReleased(table, "e", "free");
            assertTrue(loads.begin(List.of(name)).txId() > load.txId(), "a new load may begin");
            long tableId = io.phoenixtxn.client.WriteSetHashing.tableId(Bytes.toBytes(name.getNameAsString()));
            assertEquals(AbortReason.EXPIRED, ClientFixture.tm().get().commit(load.txId(), load.txId(), new long[0],
                    new long[] {io.phoenixtxn.tm.TransactionManager.BULK_LOAD_COMMIT, tableId}).abortReason(),
                    "and the TM never commits the abandoned one");
        }
    }

    @Test
    void regionServersAdmitOnlyFilesAtOneLoadVersionThatCanStillCommit() throws Exception {
        TableName name = ClientFixture.createTable("BULKR");
        Transaction load = loads.begin(List.of(name));
        assertRefused(() -> land(name, Map.of("f1", load.txId(), "f2", load.txId() + 950)), "holds cells at versions");
        assertRefused(() -> land(name, Map.of("g", System.currentTimeMillis())), "is not a transaction's start");
        long commitTs = loads.commit(load, List.of(name));
        assertRefused(() -> land(name, load.txId(), "late"), "is already committed", "can no longer commit");
        assertEquals(0, rawCells(name), "nothing of a refused file landed");
        loads.writeCommitCells(load.txId(), commitTs, List.of(name));
    }

    private interface Landing {
        void run() throws Exception;
    }

    /** Refused by the region server for one of the reasons given. */
    private static void assertRefused(Landing landing, String... why) {
        Exception refused = assertThrows(Exception.class, landing::run);
        String all = stackOf(refused);
        assertTrue(all.contains("Bulk load of HFiles into the transactional table")
                && java.util.Arrays.stream(why).anyMatch(all::contains), all);
    }

    private static void land(TableName table, long version, String... rows) throws IOException {
        Map<String, Long> cells = new java.util.TreeMap<>();
        for (String row : rows) {
            cells.put(row, version);
        }
        land(table, cells);
    }

    /** One HFile holding a cell per row (value "row@load"), each at its version, bulk loaded into the table. */
    private static void land(TableName table, Map<String, Long> versionByRow) throws IOException {
        Configuration conf = SharedStack.get().configuration();
        FileSystem fs = FileSystem.get(conf);
        Path dir = new Path("/tmp/bulkp-" + UUID.randomUUID());
        Path file = new Path(new Path(dir, Bytes.toString(FAMILY)), "load");
        StoreFileWriter writer = new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs).withFilePath(file)
                .withFileContext(new HFileContextBuilder().build()).build();
        for (Map.Entry<String, Long> row : new java.util.TreeMap<>(versionByRow).entrySet()) {
            writer.append(new KeyValue(Bytes.toBytes(row.getKey()), FAMILY, QUALIFIER, row.getValue(),
                    Bytes.toBytes(row.getKey() + "@load")));
        }
        writer.appendTrackedTimestampsToMetadata();
        writer.close();
        BulkLoadHFiles.create(conf).bulkLoad(table, Map.of(FAMILY, List.of(file)));
    }

    private static long rawCells(TableName name) throws IOException {
        long cells = 0;
        try (Table t = ClientFixture.hbase().getTable(name);
             ResultScanner scanner = t.getScanner(new Scan().readAllVersions())) {
            for (Result r : scanner) {
                cells += r.rawCells().length;
            }
        }
        return cells;
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    /**
     * The TM releases an abandoned load's tables when the load's end reaches it, with the client's next batch of
     * ended transactions (phoenix.txn.finished.flush.ms, possibly over the client's other connection): a writer that
     * commits before that is fenced (a retryable abort), and one that commits after it succeeds. Retries until it
     * commits, within 10 s; every abort meanwhile must be the fence.
     */
    private void commitOnceReleased(TransactionalTable table, String row, String value) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Transaction writer = client.begin();
            write(table, writer, row, value);
            try {
                client.commit(writer);
                return;
            } catch (TxnAbortedException e) {
                assertEquals(AbortReason.FENCE, e.reason(), "only the hold, until it is released");
                assertTrue(System.nanoTime() - deadline < 0, "the TM did not release the abandoned load's table");
                Thread.sleep(10);
            }
        }
    }
}
