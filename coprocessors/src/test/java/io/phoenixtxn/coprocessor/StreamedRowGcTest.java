package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StreamedRowGc} through {@link GcScanner}: a row above the buffer bound is decided in two passes, and what it
 * keeps is exactly what {@link RowGc} keeps of the same row buffered whole (random rows: committed versions with
 * commit timestamps out of version order, aborted, undecided and invalidated writers, tombstones, family deletes,
 * several columns, qualifiers on both sides of the commit-cell prefix, minor and major compactions), except orphan
 * commit cells, which the streamed path keeps. Two passes that disagree fail the compaction.
 */
class StreamedRowGcTest {
    private static final byte[] F = Bytes.toBytes("f");
    private static final long GC = TimestampLayout.firstSlotOfMillis(10_000);
    private static final long SAFE = TimestampLayout.firstSlotOfMillis(9_000);
    /** "a" and "z" sort after the commit-cell prefix 00 C2 80, 00 01 before it; the empty one is the family's. */
    private static final byte[][] QUALIFIERS = {Bytes.toBytes("a"), Bytes.toBytes("z"), new byte[] {0, 1}};

    private static long tx(int millis, int slot) {
        return TimestampLayout.firstSlotOfMillis(millis) + (long) slot * TimestampLayout.SLOT_WIDTH;
    }

    /** The compaction's input as a list: the first pass reads the row from it. */
    private static final class ListInput implements StreamedRowGc.CompactionInput {
        final List<Cell> cells;
        int reads;
        boolean closed;

        ListInput(List<Cell> cells) {
            this.cells = new ArrayList<>(cells);
            this.cells.sort(CellComparator.getInstance());
        }

        @Override
        public boolean readRow(byte[] row, StreamedRowGc.CellSink sink, long maxCells) throws IOException {
            reads++;
            long n = 0;
            for (Cell cell : cells) {
                if (CellUtil.matchingRows(cell, row)) {
                    if (++n > maxCells) {
                        return false;
                    }
                    sink.accept(cell);
                }
            }
            return true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A random row of writers; invalidated ones are recorded in {@code table}. */
    private static List<Cell> randomRow(Random random, String row, FakeCommitTable table) throws IOException {
        List<Cell> cells = new ArrayList<>();
        byte[] r = Bytes.toBytes(row);
        int writers = 5 + random.nextInt(60);
        for (int w = 0; w < writers; w++) {
            long version = tx(1 + random.nextInt(11_000), random.nextInt(5)) + (random.nextInt(8) == 0 ? 1 : 0);
            // A writer's fate and commit time are its own, whatever rows it wrote (as in a real store).
            Random fate = new Random(TimestampLayout.txIdOf(version));
            int kind = fate.nextInt(10);
            boolean familyDelete = random.nextInt(15) == 0;
            List<byte[]> columns = new ArrayList<>();
            if (familyDelete) {
                columns.add(new byte[0]);
            } else {
                for (byte[] q : QUALIFIERS) {
                    if (random.nextBoolean()) {
                        columns.add(q);
                    }
                }
                if (columns.isEmpty()) {
                    columns.add(QUALIFIERS[0]);
                }
            }
            long commitTs = TimestampLayout.txIdOf(version) + (1 + fate.nextInt(3_000)) * TimestampLayout.SLOT_WIDTH;
            for (byte[] q : columns) {
                byte[] value = familyDelete || random.nextInt(6) == 0 ? new byte[0]
                        : Bytes.toBytes("v" + version);
                cells.add(new KeyValue(r, F, q, version, KeyValue.Type.Put, value));
                if (kind < 7) { // committed, commit cell beside it
                    cells.add(new KeyValue(r, F, OnDiskLayout.commitQualifier(q), version, KeyValue.Type.Put,
                            Bytes.toBytes(commitTs)));
                } else if (kind == 7 && TimestampLayout.txIdOf(version) < SAFE) { // invalidated by a reader
                    table.tryInvalidate(TimestampLayout.txIdOf(version));
                }
                // else: no commit cell and no entry: aborted below the horizon, undecided above it
            }
            if (random.nextInt(25) == 0) { // an orphan commit cell: its data version is in another file
                cells.add(new KeyValue(r, F, OnDiskLayout.commitQualifier(QUALIFIERS[1]), version + 2,
                        KeyValue.Type.Put, Bytes.toBytes(commitTs)));
            }
        }
        // Keep one cell per (qualifier, version), as a store scanner hands them out.
        cells.sort(CellComparator.getInstance());
        List<Cell> unique = new ArrayList<>();
        for (Cell cell : cells) {
            if (unique.isEmpty() || CellComparator.getInstance().compare(unique.get(unique.size() - 1), cell,
                    true) != 0) {
                unique.add(cell);
            }
        }
        return unique;
    }

    private static GcStatusResolver resolver(FakeCommitTable table) {
        return new GcStatusResolver(new Horizon(GC, SAFE), table,
                (row, family, qualifier, version) -> Visibility.NOT_COMMITTED, "test");
    }

    private static List<Cell> drain(InternalScanner scanner) throws IOException {
        List<Cell> out = new ArrayList<>();
        boolean more;
        do {
            List<Cell> batch = new ArrayList<>();
            more = scanner.next(batch, null);
            out.addAll(batch);
        } while (more);
        return out;
    }

    private static List<String> describe(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Bytes.toStringBinary(CellUtil.cloneRow(c)) + "/" + Bytes.toStringBinary(CellUtil.cloneQualifier(c))
                    + "@" + c.getTimestamp());
        }
        return out;
    }

    /** What RowGc keeps of each row buffered whole, orphan commit cells kept. */
    private static List<Cell> expected(List<Cell> input, boolean major, FakeCommitTable table) throws IOException {
        List<Cell> sorted = new ArrayList<>(input);
        sorted.sort(CellComparator.getInstance());
        List<Cell> out = new ArrayList<>();
        GcStatusResolver statuses = resolver(table); // one per scanner, as in a compaction
        int i = 0;
        while (i < sorted.size()) {
            int j = i;
            while (j < sorted.size() && CellUtil.matchingRows(sorted.get(i), sorted.get(j))) {
                j++;
            }
            List<Cell> row = sorted.subList(i, j);
            boolean[] keep = new RowGc(GC, Long.MIN_VALUE, major).decide(row, statuses,
                    RowGc.OutsideInput.NONE);
            for (int k = 0; k < row.size(); k++) {
                Cell cell = row.get(k);
                if (keep[k] || isOrphanCommitCell(cell, row)) {
                    out.add(cell);
                }
            }
            i = j;
        }
        return out;
    }

    private static boolean isOrphanCommitCell(Cell cell, List<Cell> row) {
        if (!OnDiskLayout.isCommitCell(cell)) {
            return false;
        }
        byte[] q = OnDiskLayout.dataQualifierOf(cell);
        return row.stream().noneMatch(c -> !OnDiskLayout.isCommitCell(c) && CellUtil.matchingQualifier(c, q)
                && c.getTimestamp() == cell.getTimestamp());
    }

    private static GcScanner streamed(List<Cell> input, ListInput firstPass, boolean major, FakeCommitTable table,
                                      int rowMaxCells, long streamMaxCells, AtomicInteger disagreements, int batch) {
        GcScanner.Streaming streaming = new GcScanner.Streaming(new StreamedRowGc(GC, Long.MIN_VALUE, major),
                firstPass, streamMaxCells, cause -> disagreements.incrementAndGet());
        return new GcScanner(new BatchScanner(input, batch), new RowGc(GC, Long.MIN_VALUE, major), resolver(table),
                RowGc.OutsideInput.NONE, rowMaxCells, "test", streaming);
    }

    @Test
    void streamedVerdictsEqualBufferedVerdictsOnRandomRows() throws IOException {
        Random random = new Random(42);
        int streamedRows = 0;
        for (int round = 0; round < 400; round++) {
            FakeCommitTable table = new FakeCommitTable();
            List<Cell> input = new ArrayList<>();
            for (String row : new String[] {"a", "b", "c"}) {
                input.addAll(randomRow(random, row, table));
            }
            boolean major = random.nextBoolean();
            List<Cell> expected = expected(input, major, table);
            AtomicInteger disagreements = new AtomicInteger();
            ListInput firstPass = new ListInput(input);
            GcScanner scanner = streamed(input, firstPass, major, table, 4, 1_000_000, disagreements,
                    1 + random.nextInt(20));
            assertEquals(describe(expected), describe(drain(scanner)), "round " + round + ", major " + major);
            scanner.close();
            assertTrue(firstPass.closed, "the first pass's scanner is closed with the compaction's");
            assertEquals(0, disagreements.get());
            streamedRows += (int) scanner.rowsStreamed();
        }
        assertTrue(streamedRows > 1_000, "rows above the bound were streamed: " + streamedRows);
    }

    @Test
    void aHotRowShrinksToItsNewestVersionInTwoPasses() throws IOException {
        List<Cell> input = new ArrayList<>();
        byte[] r = Bytes.toBytes("hot");
        for (int v = 1; v <= 5_000; v++) {
            long version = tx(v, 0);
            input.add(new KeyValue(r, F, QUALIFIERS[0], version, KeyValue.Type.Put, Bytes.toBytes("v" + v)));
            input.add(new KeyValue(r, F, OnDiskLayout.commitQualifier(QUALIFIERS[0]), version, KeyValue.Type.Put,
                    Bytes.toBytes(version + 1)));
        }
        ListInput firstPass = new ListInput(input);
        GcScanner scanner = streamed(input, firstPass, true, new FakeCommitTable(), 100, 1_000_000,
                new AtomicInteger(), 10);
        List<Cell> out = drain(scanner);
        assertEquals(List.of("hot/\\x00\\xC2\\x80a\\xC2\\x80@" + tx(5_000, 0), "hot/a@" + tx(5_000, 0)),
                describe(out));
        assertEquals(1, scanner.rowsStreamed());
        assertEquals(1, firstPass.reads);
    }

    @Test
    void aRowAboveTheStreamingBoundPassesUnchanged() throws IOException {
        FakeCommitTable table = new FakeCommitTable();
        List<Cell> input = randomRow(new Random(7), "r", table);
        long unchanged = GcCounters.rowsUnchanged();
        GcScanner scanner = streamed(input, new ListInput(input), true, table, 2, 3, new AtomicInteger(), 5);
        List<Cell> sorted = new ArrayList<>(input);
        sorted.sort(CellComparator.getInstance());
        assertEquals(describe(sorted), describe(drain(scanner)));
        assertEquals(0, scanner.rowsStreamed());
        assertEquals(unchanged + 1, GcCounters.rowsUnchanged(), "counted as written unchanged");
        RegionServerTxnMetrics.ensureRegistered();
        assertEquals(GcCounters.rowsUnchanged(), io.phoenixtxn.tm.metrics.MetricsSnapshot.of(
                RegionServerTxnMetrics.source()).get("GcRowsUnchanged"));
    }

    @Test
    void aDataVersionTheSecondPassNeverSeesFailsTheCompaction() throws IOException {
        List<Cell> input = new ArrayList<>();
        byte[] r = Bytes.toBytes("r");
        for (int v = 1; v <= 50; v++) {
            input.add(new KeyValue(r, F, QUALIFIERS[0], tx(v, 0), KeyValue.Type.Put, Bytes.toBytes("v" + v)));
            input.add(new KeyValue(r, F, OnDiskLayout.commitQualifier(QUALIFIERS[0]), tx(v, 0), KeyValue.Type.Put,
                    Bytes.toBytes(tx(v, 1))));
        }
        List<Cell> firstPassView = new ArrayList<>(input);
        long newest = tx(51, 0);
        firstPassView.add(new KeyValue(r, F, QUALIFIERS[0], newest, KeyValue.Type.Put, Bytes.toBytes("v51")));
        firstPassView.add(new KeyValue(r, F, OnDiskLayout.commitQualifier(QUALIFIERS[0]), newest, KeyValue.Type.Put,
                Bytes.toBytes(tx(51, 1))));
        AtomicInteger disagreements = new AtomicInteger();
        GcScanner scanner = streamed(input, new ListInput(firstPassView), true, new FakeCommitTable(), 10, 1_000,
                disagreements, 7);
        IOException failed = assertThrows(IOException.class, () -> drain(scanner));
        assertTrue(failed.getMessage().contains("read differently"), failed.getMessage());
        assertEquals(1, disagreements.get());
    }

    @Test
    void aCellTheFirstPassNeverSawFailsTheCompaction() throws IOException {
        List<Cell> input = new ArrayList<>();
        byte[] r = Bytes.toBytes("r");
        for (int v = 1; v <= 50; v++) {
            input.add(new KeyValue(r, F, QUALIFIERS[0], tx(v, 0), KeyValue.Type.Put, Bytes.toBytes("v" + v)));
            input.add(new KeyValue(r, F, OnDiskLayout.commitQualifier(QUALIFIERS[0]), tx(v, 0), KeyValue.Type.Put,
                    Bytes.toBytes(tx(v, 1))));
        }
        List<Cell> firstPassView = new ArrayList<>(input);
        firstPassView.removeIf(c -> OnDiskLayout.isCommitCell(c) && c.getTimestamp() == tx(50, 0));
        AtomicInteger disagreements = new AtomicInteger();
        GcScanner scanner = streamed(input, new ListInput(firstPassView), true, new FakeCommitTable(), 10, 1_000,
                disagreements, 7);
        assertThrows(IOException.class, () -> drain(scanner));
        assertEquals(1, disagreements.get());
    }

    private static List<Cell> committedVersions(String row, int versions, byte[]... commitQualifierForms) {
        List<Cell> input = new ArrayList<>();
        byte[] r = Bytes.toBytes(row);
        for (int v = 1; v <= versions; v++) {
            input.add(new KeyValue(r, F, QUALIFIERS[0], tx(v, 0), KeyValue.Type.Put, Bytes.toBytes("v" + v)));
            byte[] commitQualifier = commitQualifierForms.length == 0 ? OnDiskLayout.commitQualifier(QUALIFIERS[0])
                    : commitQualifierForms[v % commitQualifierForms.length];
            input.add(new KeyValue(r, F, commitQualifier, tx(v, 0), KeyValue.Type.Put, Bytes.toBytes(tx(v, 1))));
        }
        return input;
    }

    @Test
    void aCommitCellTheSecondPassNeverSeesFailsTheCompaction() throws IOException {
        List<Cell> input = committedVersions("r", 50);
        List<Cell> compactionView = new ArrayList<>(input);
        // The first pass sees v50's commit cell, the compaction does not: without the check, v50 would be kept as the
        // newest committed version without its commit cell and v49 dropped.
        compactionView.removeIf(c -> OnDiskLayout.isCommitCell(c) && c.getTimestamp() == tx(50, 0));
        AtomicInteger disagreements = new AtomicInteger();
        GcScanner scanner = streamed(compactionView, new ListInput(input), true, new FakeCommitTable(), 10, 1_000,
                disagreements, 7);
        IOException failed = assertThrows(IOException.class, () -> drain(scanner));
        assertTrue(failed.getMessage().contains("49 of 50 commit cells"), failed.getMessage());
        assertEquals(1, disagreements.get());
    }

    @Test
    void duplicateVersionsInBothPassesMatchOneToOne() throws IOException {
        List<Cell> input = committedVersions("r", 30);
        // An HBase client's retried put of v30: the same key twice (different sequence ids in a real store).
        input.add(new KeyValue(Bytes.toBytes("r"), F, QUALIFIERS[0], tx(30, 0), KeyValue.Type.Put,
                Bytes.toBytes("v30")));
        input.sort(CellComparator.getInstance());
        AtomicInteger disagreements = new AtomicInteger();
        GcScanner scanner = streamed(input, new ListInput(input), true, new FakeCommitTable(), 10, 1_000,
                disagreements, 4);
        List<String> out = describe(drain(scanner));
        assertEquals(0, disagreements.get());
        assertEquals(3, out.size(), "v30 twice and its commit cell: " + out);
    }

    @Test
    void commitCellsOfBothQualifierFormsInOneColumnAreMatched() throws IOException {
        byte[] current = OnDiskLayout.commitQualifier(QUALIFIERS[0]);
        byte[] legacy = Bytes.add(QUALIFIERS[0], new byte[] {(byte) 0xC2, (byte) 0x80});
        org.junit.jupiter.api.Assumptions.assumeTrue(OnDiskLayout.isCommitCell(new KeyValue(Bytes.toBytes("r"), F,
                legacy, 1L, KeyValue.Type.Put, Bytes.toBytes(2L))), "the legacy commit-cell form is read");
        List<Cell> input = committedVersions("r", 40, current, legacy);
        AtomicInteger disagreements = new AtomicInteger();
        GcScanner scanner = streamed(input, new ListInput(input), true, new FakeCommitTable(), 10, 1_000,
                disagreements, 6);
        List<Cell> out = drain(scanner);
        assertEquals(0, disagreements.get());
        assertEquals(List.of(tx(40, 0), tx(40, 0)), out.stream().map(Cell::getTimestamp).toList(), describe(out)
                .toString());
    }

    @Test
    void aFailingFirstPassLeavesTheRowUnchangedAndTheCompactionGoesOn() throws IOException {
        List<Cell> input = committedVersions("r", 30);
        StreamedRowGc.CompactionInput broken = new StreamedRowGc.CompactionInput() {
            @Override
            public boolean readRow(byte[] row, StreamedRowGc.CellSink sink, long maxCells) throws IOException {
                throw new IOException("store file unreadable (test)");
            }

            @Override
            public void close() {
            }
        };
        GcScanner.Streaming streaming = new GcScanner.Streaming(new StreamedRowGc(GC, Long.MIN_VALUE, true), broken,
                1_000, cause -> { });
        GcScanner scanner = new GcScanner(new BatchScanner(input, 5), new RowGc(GC, Long.MIN_VALUE, true),
                resolver(new FakeCommitTable()), RowGc.OutsideInput.NONE, 10, "test", streaming);
        long unchanged = GcCounters.rowsUnchanged();
        assertEquals(60, drain(scanner).size());
        assertEquals(unchanged + 1, GcCounters.rowsUnchanged(), "counted as written unchanged");
    }

    /**
     * Review item 6: a converted table's hot row, streamed. Its pre-switch cells (millisecond versions, no commit
     * cells) are committed at their version; an empty value or an empty qualifier is data there, not a tombstone or
     * a family delete; a TTL counts from the cell's millisecond. The streamed verdicts equal the buffered ones.
     */
    @Test
    void aConvertedTablesHotRowKeepsItsPreSwitchValues() throws IOException {
        byte[] r = Bytes.toBytes("old");
        List<Cell> input = new ArrayList<>();
        for (long ms = 1_000; ms <= 1_004; ms++) {
            input.add(new KeyValue(r, F, QUALIFIERS[0], ms, KeyValue.Type.Put,
                    ms == 1_004 ? new byte[0] : Bytes.toBytes("a" + ms)));
        }
        input.add(new KeyValue(r, F, new byte[0], 1_003, KeyValue.Type.Put, Bytes.toBytes("empty qualifier")));
        input.add(new KeyValue(r, F, QUALIFIERS[1], 100, KeyValue.Type.Put, Bytes.toBytes("expired")));
        input.sort(CellComparator.getInstance());
        long expiredBelow = TimestampLayout.firstSlotOfMillis(500); // a TTL that expired what was written before 500
        FakeCommitTable table = new FakeCommitTable();
        GcStatusResolver statuses = new GcStatusResolver(new Horizon(GC, SAFE), table,
                (row, family, qualifier, version) -> Visibility.NOT_COMMITTED, "test", PreTransactionalCells.CONVERTED);
        AtomicInteger disagreements = new AtomicInteger();
        GcScanner.Streaming streaming = new GcScanner.Streaming(new StreamedRowGc(GC, expiredBelow, true,
                PreTransactionalCells.CONVERTED), new ListInput(input), 1_000_000,
                cause -> disagreements.incrementAndGet());
        GcScanner scanner = new GcScanner(new BatchScanner(input, 3), new RowGc(GC, expiredBelow, true,
                PreTransactionalCells.CONVERTED), statuses, RowGc.OutsideInput.NONE, 2, "test", streaming);
        List<Cell> out = drain(scanner);
        assertEquals(1, scanner.rowsStreamed(), "the row went the streamed way");
        assertEquals(0, disagreements.get());
        assertEquals(List.of("old/@1003", "old/a@1004"), describe(out),
                "the newest pre-switch value of each column stays, empty or not; the expired one goes");
        boolean[] buffered = new RowGc(GC, expiredBelow, true, PreTransactionalCells.CONVERTED).decide(input,
                new GcStatusResolver(new Horizon(GC, SAFE), table, (row, family, qualifier, version)
                        -> Visibility.NOT_COMMITTED, "test", PreTransactionalCells.CONVERTED), RowGc.OutsideInput.NONE);
        List<Cell> kept = new ArrayList<>();
        for (int i = 0; i < input.size(); i++) {
            if (buffered[i]) {
                kept.add(input.get(i));
            }
        }
        assertEquals(describe(kept), describe(out), "as RowGc decides the row buffered");
    }
}
