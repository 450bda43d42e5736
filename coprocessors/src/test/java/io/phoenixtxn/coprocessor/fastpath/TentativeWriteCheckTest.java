package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.fastpath.FastPathWriteConflictException;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static io.phoenixtxn.coprocessor.fastpath.RowCells.F;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.ROW;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.fp;
import static io.phoenixtxn.coprocessor.fastpath.RowCells.slot;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TentativeWriteCheck} (VLDB'18 Alg. 4 prePut; review defect #8): a tentative write is recognised by its cells
 * (data without its commit cell in the same put), whatever attributes it carries, so every one is checked against the
 * row's fast-path commits: a write of a transaction that started below the row's newest fast-path commit is refused.
 * Puts that commit what they write (commit cells for every data cell) are not tentative: they raise the clock.
 */
class TentativeWriteCheckTest {
    /** The row's fast-path commit: version and commit timestamp fp(5, 0). */
    private static final long FAST_PATH_COMMIT = fp(5, 0);
    /** A transaction that started before it. */
    private static final long EARLIER_WRITER = slot(3);

    private final RowCells row = new RowCells().committed("v", FAST_PATH_COMMIT, FAST_PATH_COMMIT, 1L);

    @Test
    void aTentativeWriteThatNamesNoCommitTableIsChecked() {
        Put tentative = new Put(ROW).addColumn(F, Bytes.toBytes("v"), EARLIER_WRITER, Bytes.toBytes(2L));

        assertThrows(FastPathWriteConflictException.class, () -> check().check(batchOf(tentative)),
                "a write of transaction " + EARLIER_WRITER + " (no commit-table attribute: an older or non-Phoenix"
                        + " client) over the fast-path commit " + FAST_PATH_COMMIT + " was let through");
    }

    @Test
    void aTentativeWriteThatNamesItsCommitTableIsChecked() {
        Put tentative = new Put(ROW).addColumn(F, Bytes.toBytes("v"), EARLIER_WRITER, Bytes.toBytes(2L));
        tentative.setAttribute(SnapshotAttributes.COMMIT_TABLE, "OMID_COMMIT_TABLE".getBytes(StandardCharsets.UTF_8));

        assertThrows(FastPathWriteConflictException.class, () -> check().check(batchOf(tentative)));
    }

    @Test
    void aTentativeWriteNextToACommitCellOfAnotherColumnIsChecked() {
        Put mixed = new Put(ROW).addColumn(F, Bytes.toBytes("v"), EARLIER_WRITER, Bytes.toBytes(2L))
                .addColumn(F, OnDiskLayout.commitQualifier(Bytes.toBytes("w")), slot(1),
                        OnDiskLayout.encodeCommitTimestamp(slot(2)));

        assertThrows(FastPathWriteConflictException.class, () -> check().check(batchOf(mixed)),
                "the tentative cell rode past the check on another column's commit cell");
    }

    @Test
    void aTransactionThatStartedAfterTheFastPathCommitWrites() {
        Put tentative = new Put(ROW).addColumn(F, Bytes.toBytes("v"), slot(6), Bytes.toBytes(2L));

        assertDoesNotThrow(() -> check().check(batchOf(tentative)));
    }

    @Test
    void aPutThatCommitsWhatItWritesIsNotTentativeAndRaisesTheClock() throws Exception {
        long commitTs = slot(8);
        Put committedOnWrite = new Put(ROW).addColumn(F, Bytes.toBytes("v"), EARLIER_WRITER, Bytes.toBytes(2L))
                .addColumn(F, OnDiskLayout.commitQualifier(Bytes.toBytes("v")), EARLIER_WRITER,
                        OnDiskLayout.encodeCommitTimestamp(commitTs));
        TentativeWriteCheck check = check();

        check.check(batchOf(committedOnWrite));

        assertTrue(clock.current() >= commitTs, "clock " + clock.current() + " below the commit " + commitTs);
    }

    private LocalVersionClock clock;

    /** The check of a region holding the row, bootstrapped below the fast-path commit, which it knows it drew. */
    private TentativeWriteCheck check() {
        Region region = FakeRowRegion.of(row::cells);
        ScriptedTimestamps tm = ScriptedTimestamps.immediate(slot(0));
        clock = new LocalVersionClock(tm);
        RegionBootstrap bootstrap = new RegionBootstrap(clock, tm);
        assertTrue(bootstrap.await(1_000));
        TentativeWriteCheck check = new TentativeWriteCheck(region, new RowReader(region, null,
                () -> Horizon.UNKNOWN), bootstrap, clock);
        check.wrote(FAST_PATH_COMMIT); // as the fast-path write that drew it did
        return check;
    }

    private static MiniBatchOperationInProgress<Mutation> batchOf(Put put) {
        return new MiniBatchOperationInProgress<>(new Mutation[] {put}, new OperationStatus[] {
                OperationStatus.NOT_RUN}, new WALEdit[1], 0, 1, 1);
    }
}
