package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
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
}
