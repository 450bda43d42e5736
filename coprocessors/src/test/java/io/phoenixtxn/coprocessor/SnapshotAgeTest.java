package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnapshotAgeTest {
    private static final long START = TimestampLayout.firstSlotOfMillis(1_000);
    private static final TableName T = TableName.valueOf("T");

    @Test
    void aSnapshotBelowTheHorizonIsRefusedWithWhatToDo() {
        DoNotRetryIOException e = assertThrows(DoNotRetryIOException.class, () -> SnapshotAge.check(
                Snapshot.begin(START), new Horizon(START + 1, 0), "scan", T));
        String m = e.getMessage();
        assertTrue(m.startsWith("Snapshot too old"), m);
        assertTrue(m.contains(Long.toString(START)) && m.contains(Long.toString(START + 1)), m);
        assertTrue(m.contains("retry it") && m.contains("phoenix.txn.tm.transaction.lease.ms"), m);
    }

    @Test
    void aSnapshotAtTheHorizonOrWithoutOneIsRead() {
        assertDoesNotThrow(() -> SnapshotAge.check(Snapshot.begin(START), new Horizon(START, 0), "get", T));
        assertDoesNotThrow(() -> SnapshotAge.check(Snapshot.begin(START), Horizon.UNKNOWN, "get", T));
    }

    @Test
    void aMapReduceReadBelowTheHorizonFailsAtItsFirstRowAndAnEmptyRegionAnswersEmpty() throws Exception {
        assertNull(SnapshotAge.mapReduceReadTooOld(Snapshot.begin(START), new Horizon(START, 0), T));
        assertNull(SnapshotAge.mapReduceReadTooOld(Snapshot.begin(START), Horizon.UNKNOWN, T));
        DoNotRetryIOException tooOld = SnapshotAge.mapReduceReadTooOld(Snapshot.begin(START),
                new Horizon(START + 1, 0), T);
        assertTrue(tooOld.getMessage().contains("TransactionalIndexTool"), tooOld.getMessage());

        List<Cell> row = List.of(new KeyValue(Bytes.toBytes("r"), Bytes.toBytes("f"), Bytes.toBytes("q"), 1L,
                Bytes.toBytes("v")));
        List<Cell> out = new ArrayList<>();
        assertFalse(new TooOldMapReduceScanner(scanner(List.of()), tooOld).nextRaw(out), "an empty region");
        assertTrue(out.isEmpty());
        RegionScanner withRow = new TooOldMapReduceScanner(scanner(List.of(row)), tooOld);
        assertSame(tooOld, assertThrows(DoNotRetryIOException.class, () -> withRow.nextRaw(out)));
        assertTrue(out.isEmpty(), "no cell of the refused row is returned");
    }

    /** A region scanner over the given rows, one per call. */
    private static RegionScanner scanner(List<List<Cell>> rows) {
        Iterator<List<Cell>> it = rows.iterator();
        RegionScanner scanner = Mockito.mock(RegionScanner.class);
        try {
            Mockito.when(scanner.nextRaw(Mockito.anyList())).thenAnswer(call -> {
                if (it.hasNext()) {
                    List<Cell> result = call.getArgument(0);
                    result.addAll(it.next());
                }
                return it.hasNext();
            });
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        return scanner;
    }
}
