package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit-table cleaner on the {@link CommitTable} and {@link CommitCellWriter} seams: each entry is completed on
 * its own, so one that cannot be completed is counted and retried next pass without holding back the others, and a
 * dropped table's cells count as done (they went with the table).
 */
class CommitTableCleanerTest {
    private static final TableName A = TableName.valueOf("A");
    private static final TableName B = TableName.valueOf("B");
    private static final TableName C = TableName.valueOf("C");
    private static final TableName GONE = TableName.valueOf("GONE");

    private final InMemoryCommitTable commitTable = new InMemoryCommitTable();
    private final ScriptedCellWriter cells = new ScriptedCellWriter();
    private final TxnClientMetrics metrics = new TxnClientMetrics(60);
    private final CommitTableCleaner cleaner = new CommitTableCleaner(commitTable, cells, metrics);

    @Test
    void anEntryThatCannotBeCompletedIsCountedAndRetriedNextPassWithoutHoldingBackTheOthers() throws IOException {
        crashedAfterCommitPoint(1_000, A);
        crashedAfterCommitPoint(2_000, B);
        crashedAfterCommitPoint(3_000, C);
        cells.failNextWrites(A, 1);

        assertEquals(2, cleaner.cleanOnce(10_000), "the entries after the failing one are completed");
        assertEquals(1, cleaner.failures());
        assertEquals(1, metrics.cleanerRuns());
        assertEquals(2, metrics.cleanerCompleted());
        assertEquals(1, metrics.cleanerFailed());
        assertEquals(CommitTable.Entry.State.COMMITTED, commitTable.lookup(1_000).state(), "stays for readers");
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(2_000).state());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(3_000).state());
        assertEquals(List.of(2_001L), commitTimestampsWritten(B));
        assertEquals(List.of(3_001L), commitTimestampsWritten(C));
        assertTrue(commitTimestampsWritten(A).isEmpty());

        assertEquals(1, cleaner.cleanOnce(10_000), "the next pass retries it");
        assertEquals(1, cleaner.failures(), "and counts no new failure");
        Map<String, Number> exposed = io.phoenixtxn.tm.metrics.MetricsSnapshot.of(metrics);
        assertEquals(2L, exposed.get("CleanerRuns"));
        assertEquals(3L, exposed.get("CleanerCompleted"));
        assertEquals(1L, exposed.get("CleanerFailed"));
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(1_000).state());
        assertEquals(List.of(1_001L), commitTimestampsWritten(A));
    }

    @Test
    void anEntryWhoseOtherTablesWereDroppedIsCompleteOnceTheLiveTablesHaveTheirCells() throws IOException {
        crashedAfterCommitPoint(1_000, GONE);
        crashedAfterCommitPoint(2_000, GONE, A);
        crashedAfterCommitPoint(3_000, B);
        cells.drop(GONE);

        assertEquals(3, cleaner.cleanOnce(10_000));
        assertEquals(0, cleaner.failures());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(1_000).state(), "nothing left to mark");
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(2_000).state());
        assertEquals(List.of(2_001L), commitTimestampsWritten(A), "the live table of the same entry got its cells");
        assertEquals(List.of(3_001L), commitTimestampsWritten(B));
    }

    @Test
    void aCorruptRecoveryRecordIsCountedAndTheOtherEntriesAreCompleted() throws IOException {
        commitTable.tryCommit(1_000, 1_001, new byte[] {9, 9, 9});
        crashedAfterCommitPoint(2_000, A);

        assertEquals(1, cleaner.cleanOnce(10_000));
        assertEquals(1, cleaner.failures());
        assertEquals(CommitTable.Entry.State.COMMITTED, commitTable.lookup(1_000).state());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(2_000).state());
    }

    @Test
    void leavesYoungerEntriesEntriesWithoutARecordAndInvalidatedOnes() throws IOException {
        commitTable.tryCommit(1_000, 1_001, null); // Omid's, or a record over the size limit: readers resolve it
        crashedAfterCommitPoint(2_000, A);
        assertTrue(commitTable.tryInvalidate(3_000));
        crashedAfterCommitPoint(20_000, B); // within the grace period: its own client may still be post-committing

        assertEquals(1, cleaner.cleanOnce(10_000));
        assertEquals(0, cleaner.failures());
        assertEquals(CommitTable.Entry.State.COMMITTED, commitTable.lookup(1_000).state());
        assertEquals(CommitTable.Entry.State.ABSENT, commitTable.lookup(2_000).state());
        assertEquals(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(3_000).state());
        assertEquals(CommitTable.Entry.State.COMMITTED, commitTable.lookup(20_000).state());
        assertTrue(commitTimestampsWritten(B).isEmpty());
        assertNull(commitTable.recoveryRecord(3_000));
    }

    /** An entry as a client that died right after its commit point leaves it: commit ts = txId + 1, one cell per table. */
    private void crashedAfterCommitPoint(long txId, TableName... tables) throws IOException {
        Map<TableName, List<WrittenCell>> written = new LinkedHashMap<>();
        for (TableName table : tables) {
            written.put(table, List.of(new WrittenCell(Bytes.toBytes("row-" + txId), Bytes.toBytes("f"),
                    Bytes.toBytes("q"), txId)));
        }
        assertTrue(commitTable.tryCommit(txId, txId + 1, WrittenCellsCodec.encode(txId, written)));
    }

    private List<Long> commitTimestampsWritten(TableName table) {
        return cells.writesTo(table).stream().map(ScriptedCellWriter.Write::commitTs).toList();
    }
}
