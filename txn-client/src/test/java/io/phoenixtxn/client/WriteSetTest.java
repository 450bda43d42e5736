package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link WriteSet}: what a transaction wrote, merged from Phoenix's parallel sub-tasks. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WriteSetTest {
    private static final TableName T1 = TableName.valueOf("T1");
    private static final TableName T2 = TableName.valueOf("T2");
    private static final long TX = 1_000_000_000L;

    @Test
    void rowsGrowPastTheInitialCapacityInOrder() {
        WriteSet set = new WriteSet();
        LongStream.range(0, 1_000).forEach(set::addRow);
        assertArrayEquals(LongStream.range(0, 1_000).toArray(), set.rowHashes());
    }

    @Test
    void tablesAreCountedOnce() {
        WriteSet set = new WriteSet();
        set.addTable(7);
        set.addTable(7);
        set.addTable(9);
        long[] ids = set.tableIds();
        Arrays.sort(ids);
        assertArrayEquals(new long[] {7, 9}, ids);
    }

    @Test
    void cellsAreKeptPerTableInWriteOrderAndHandedOutAsCopies() {
        WriteSet set = new WriteSet();
        set.addCell(T1, cell("a", "q", 0));
        set.addCell(T2, cell("b", "q", 1));
        set.addCell(T1, cell("c", "q", 2));
        Map<TableName, List<WrittenCell>> cells = set.cells();
        assertEquals(List.of(T1, T2), new ArrayList<>(cells.keySet()));
        assertEquals(List.of("a", "c"), rows(cells.get(T1)));
        cells.get(T1).clear();
        assertEquals(2, set.cells().get(T1).size(), "the caller's copy is its own");
    }

    @Test
    void emptyMeansNoCellEvenWithRowsOrTables() {
        WriteSet set = new WriteSet();
        set.addRow(1);
        set.addTable(2);
        assertTrue(set.isEmpty(), "a read-only transaction commits without the TM whatever it hashed");
        set.addCell(T1, cell("a", "q", 0));
        assertFalse(set.isEmpty());
        set.clear();
        assertTrue(set.isEmpty());
        assertEquals(0, set.rowHashes().length);
        assertEquals(0, set.tableIds().length);
    }

    @Test
    void writesAndRowDeletesArePerTable() {
        WriteSet set = new WriteSet();
        set.addCell(T1, cell("a", "q", 0));
        assertTrue(set.writes(T1));
        assertFalse(set.writes(T2));
        assertFalse(set.deletesRowsOf(T1), "a column write is not a row delete");
        set.addCell(T2, new WrittenCell(Bytes.toBytes("b"), Bytes.toBytes("f"), new byte[0], TX));
        assertTrue(set.deletesRowsOf(T2), "the family-delete marker (empty qualifier) is a row delete");
        assertFalse(set.deletesRowsOf(T1));
    }

    @Test
    void addAllMergesASubTasksWritesAndIgnoresItself() {
        WriteSet main = new WriteSet();
        main.addRow(1);
        main.addTable(10);
        main.addCell(T1, cell("a", "q", 0));
        WriteSet sub = new WriteSet();
        sub.addRow(2);
        sub.addTable(10);
        sub.addTable(20);
        sub.addCell(T1, cell("b", "q", 1));
        sub.addCell(T2, cell("c", "q", 1));
        main.addAll(sub);
        main.addAll(main);
        assertArrayEquals(new long[] {1, 2}, main.rowHashes());
        long[] tables = main.tableIds();
        Arrays.sort(tables);
        assertArrayEquals(new long[] {10, 20}, tables);
        assertEquals(List.of("a", "b"), rows(main.cells().get(T1)));
        assertEquals(List.of("c"), rows(main.cells().get(T2)));
        assertEquals(1, sub.rowHashes().length, "the sub-task's set is left as it was");
    }

    @Test
    void subTasksMergingConcurrentlyLoseNothing() throws Exception {
        WriteSet main = new WriteSet();
        int tasks = 4;
        int rowsPerTask = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(tasks);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < tasks; t++) {
                int task = t;
                done.add(pool.submit(() -> {
                    WriteSet sub = new WriteSet();
                    for (int i = 0; i < rowsPerTask; i++) {
                        sub.addRow(task * rowsPerTask + i);
                        sub.addCell(T1, cell("r" + task + "-" + i, "q", 0));
                    }
                    go.await();
                    main.addAll(sub);
                    main.addRow(-1 - task);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(tasks * rowsPerTask + tasks, main.rowHashes().length);
        assertEquals(tasks * rowsPerTask, main.cells().get(T1).size());
    }

    private static WrittenCell cell(String row, String qualifier, int checkpoint) {
        return new WrittenCell(Bytes.toBytes(row), Bytes.toBytes("f"), Bytes.toBytes(qualifier), TX + checkpoint);
    }

    private static List<String> rows(List<WrittenCell> cells) {
        List<String> out = new ArrayList<>();
        cells.forEach(c -> out.add(Bytes.toString(c.row())));
        return out;
    }
}
