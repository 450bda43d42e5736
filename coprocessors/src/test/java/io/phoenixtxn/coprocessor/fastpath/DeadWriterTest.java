package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.InMemoryCommitTable;
import io.phoenixtxn.client.fastpath.ColumnValue;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathRequest;
import io.phoenixtxn.client.fastpath.FastPathWire;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;

import static io.phoenixtxn.coprocessor.fastpath.RowCells.slot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fast-path write to a row that holds a tentative version without a commit cell (review defect #7): the writer of
 * that version is decided by the region server's horizons as the regular read path decides it. Below the commit-point
 * horizon it is aborted; below the GC horizon it is force-aborted through the commit table (its invalid marker makes
 * its commit point fail), or, if its commit point wins that race, committed; above the GC horizon, or with no horizon
 * known, it may still commit and the write aborts (TENTATIVE_VERSION). Each case on a region holding the row, with an
 * in-memory commit table.
 */
class DeadWriterTest {
    /** The row's last commit: version slot(1), committed at slot(2). */
    private static final long COMMITTED = slot(1);
    /** The dead (or live) writer's tentative version, with no commit cell and no commit-table entry. */
    private static final long WRITER = slot(3);

    private final RowCells row = new RowCells().committed("v", COMMITTED, slot(2), 1L).tentative("v", WRITER, 2L);

    @Test
    void aWriterBelowTheCommitPointHorizonIsAbortedAndDoesNotBlockTheWrite() throws Exception {
        InMemoryCommitTable commitTable = new InMemoryCommitTable();

        long version = bwc(commitTable, new Horizon(slot(10), slot(5)));

        assertTrue(TimestampLayout.isFastPathVersion(version), TimestampLayout.describe(version));
        assertSame(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state(),
                "below the commit-point horizon no marker is needed: the writer can never write a commit point");
    }

    @Test
    void aWriterBelowTheGcHorizonIsForceAbortedThroughTheCommitTable() throws Exception {
        InMemoryCommitTable commitTable = new InMemoryCommitTable();

        long version = bwc(commitTable, new Horizon(slot(10), slot(2)));

        assertTrue(TimestampLayout.isFastPathVersion(version), TimestampLayout.describe(version));
        assertSame(CommitTable.Entry.State.INVALIDATED, commitTable.lookup(WRITER).state(),
                "the write passed the writer only after its invalid marker landed");
        assertTrue(!commitTable.tryCommit(WRITER, slot(11)), "the force-aborted writer can no longer commit");
    }

    @Test
    void aWriterWhoseCommitPointWinsTheForceAbortIsCommittedAndTheWriteGoesAboveIt() throws Exception {
        long commitTs = slot(4);
        InMemoryCommitTable real = new InMemoryCommitTable();
        CommitTable commitPointFirst = new ForwardingCommitTable(real) {
            @Override
            public boolean tryInvalidate(long txId) throws IOException {
                assertTrue(real.tryCommit(txId, commitTs), "the writer's commit point lands first");
                return super.tryInvalidate(txId);
            }
        };

        long version = bwc(commitPointFirst, new Horizon(slot(10), slot(2)));

        assertTrue(version > commitTs, TimestampLayout.describe(version) + " above the writer's commit");
        assertEquals(commitTs, real.lookup(WRITER).commitTs(), "the writer's commit stands");
    }

    @Test
    void aWriterAboveTheGcHorizonMayStillCommitAndBlocksTheWrite() {
        InMemoryCommitTable commitTable = new InMemoryCommitTable();

        FastPathAbortedException aborted = assertThrows(FastPathAbortedException.class,
                () -> bwc(commitTable, new Horizon(WRITER, slot(2))));

        assertSame(FastPathAbortedException.Reason.TENTATIVE_VERSION, aborted.reason());
        assertSame(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state(), "a live writer is not aborted");
    }

    @Test
    void withNoHorizonKnownNoWriterIsTakenForDead() {
        InMemoryCommitTable commitTable = new InMemoryCommitTable();

        FastPathAbortedException aborted = assertThrows(FastPathAbortedException.class,
                () -> bwc(commitTable, Horizon.UNKNOWN));

        assertSame(FastPathAbortedException.Reason.TENTATIVE_VERSION, aborted.reason());
        assertSame(CommitTable.Entry.State.ABSENT, commitTable.lookup(WRITER).state());
    }

    /** A blind write of the row; returns its version. */
    private long bwc(CommitTable commitTable, Horizon horizon) throws Exception {
        Region region = FakeRowRegion.of(row::cells);
        ScriptedTimestamps tm = ScriptedTimestamps.immediate(slot(0));
        LocalVersionClock clock = new LocalVersionClock(tm);
        RegionBootstrap bootstrap = new RegionBootstrap(clock, tm);
        assertTrue(bootstrap.await(1_000));
        RowReader rows = new RowReader(region, commitTable, () -> horizon);
        FastPathWriter writer = new FastPathWriter(region, rows, bootstrap, clock, new InFlightWrites(1_000),
                new TentativeWriteCheck(region, rows, bootstrap, clock), 1_000, () -> -1);
        Increment carrier = FastPathWire.carrier(RowCells.ROW, FastPathRequest.write(FastPathRequest.NO_BOUND,
                List.of(new ColumnValue(RowCells.F, Bytes.toBytes("v"), Bytes.toBytes(3L)))), null);
        writer.admit(carrier);
        try {
            writer.write(carrier);
            return FastPathWire.outcomeOf(writer.answer(carrier)).version();
        } finally {
            writer.finished();
        }
    }

    /** Delegates every call (tests override one). */
    private static class ForwardingCommitTable implements CommitTable {
        private final CommitTable delegate;

        ForwardingCommitTable(CommitTable delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
            return delegate.tryCommit(txId, commitTs, recoveryRecord);
        }

        @Override
        public byte[] recoveryRecord(long txId) throws IOException {
            return delegate.recoveryRecord(txId);
        }

        @Override
        public Entry lookup(long txId) throws IOException {
            return delegate.lookup(txId);
        }

        @Override
        public boolean tryInvalidate(long txId) throws IOException {
            return delegate.tryInvalidate(txId);
        }

        @Override
        public void delete(long txId) throws IOException {
            delegate.delete(txId);
        }

        @Override
        public Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException {
            return delegate.committedBefore(txIdBelow);
        }
    }
}
