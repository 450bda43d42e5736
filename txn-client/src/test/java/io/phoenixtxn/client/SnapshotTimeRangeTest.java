package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnapshotTimeRangeTest {
    private static final TableName T = TableName.valueOf("T");
    private static final byte[] F = Bytes.toBytes("f");
    private static final Snapshot SNAPSHOT = Snapshot.begin(TimestampLayout.firstSlotOfMillis(2_000));
    private static final long BOUND = SNAPSHOT.maxVersionExclusive();

    @Test
    void rangesHoldingTheSnapshotBecomeTheSnapshotsRange() throws IOException {
        assertSnapshotRange(SnapshotTimeRange.apply(new Get(Bytes.toBytes("r")), SNAPSHOT, T).getTimeRange());
        Scan scan = SnapshotTimeRange.apply(new Scan().setTimeRange(0, BOUND + 1)
                .setColumnFamilyTimeRange(F, 0, Long.MAX_VALUE), SNAPSHOT, T);
        assertSnapshotRange(scan.getTimeRange());
        assertSnapshotRange(scan.getColumnFamilyTimeRange().get(F)); // per-family ranges too
    }

    private static void assertSnapshotRange(TimeRange range) {
        assertEquals(0, range.getMin());
        assertEquals(BOUND, range.getMax());
    }

    @Test
    void narrowerRangesAreRefused() throws IOException {
        for (Get get : new Get[] {new Get(Bytes.toBytes("r")).setTimeRange(0, BOUND - 1),
                new Get(Bytes.toBytes("r")).setTimeRange(1, Long.MAX_VALUE),
                new Get(Bytes.toBytes("r")).setTimestamp(BOUND - 1),
                new Get(Bytes.toBytes("r")).setColumnFamilyTimeRange(F, 0, BOUND - 1)}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> SnapshotTimeRange.apply(get, SNAPSHOT, T));
            assertTrue(refused.getMessage().contains("[0, " + BOUND + ")"), refused.getMessage());
            assertTrue(refused.getMessage().contains("remove the time range"), refused.getMessage());
        }
        assertThrows(IllegalArgumentException.class,
                () -> SnapshotTimeRange.apply(new Scan().setTimeRange(0, BOUND - 1), SNAPSHOT, T));
    }
}
