package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.Snapshot;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Query;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.Map;

/**
 * The time range of a transactional read. Versions of transactional cells are write pointers (a writer's start
 * timestamp and its checkpoints, {@code TimestampLayout}), not commit times, and which version a snapshot sees is
 * decided by commits. A range narrower than the snapshot's would hide the newest committed version of a cell (and
 * show an overwritten value, or a deleted row again) or keep only part of one transaction's writes: it cannot be
 * honoured. So a read's range, global and per family, must contain {@code [0, snapshot.maxVersionExclusive())} (the
 * default {@code [0, Long.MAX_VALUE)} does) and is then replaced by exactly that range; a narrower one, including
 * {@code Get.setTimestamp}, is refused with {@link IllegalArgumentException}. Apache Omid's client refuses every
 * time range on transactional reads; Phoenix sets its own server-time ranges on scans of transactional tables and
 * its Omid table resets them, as our Phoenix table does.
 */
final class SnapshotTimeRange {
    private SnapshotTimeRange() {
    }

    static Get apply(Get get, Snapshot snapshot, TableName table) throws IOException {
        check(get.getTimeRange(), snapshot, table, "get");
        checkFamilies(get, snapshot, table, "get");
        get.setTimeRange(0, snapshot.maxVersionExclusive());
        narrowFamilies(get, snapshot);
        return get;
    }

    static Scan apply(Scan scan, Snapshot snapshot, TableName table) throws IOException {
        check(scan.getTimeRange(), snapshot, table, "scan");
        checkFamilies(scan, snapshot, table, "scan");
        scan.setTimeRange(0, snapshot.maxVersionExclusive());
        narrowFamilies(scan, snapshot);
        return scan;
    }

    private static void checkFamilies(Query query, Snapshot snapshot, TableName table, String what) {
        for (Map.Entry<byte[], TimeRange> family : query.getColumnFamilyTimeRange().entrySet()) {
            check(family.getValue(), snapshot, table, what + " (family " + Bytes.toStringBinary(family.getKey())
                    + ")");
        }
    }

    /** Per-family ranges take precedence over the global one in HBase: they get the snapshot's range too. */
    private static void narrowFamilies(Query query, Snapshot snapshot) {
        for (byte[] family : query.getColumnFamilyTimeRange().keySet().toArray(new byte[0][])) {
            query.setColumnFamilyTimeRange(family, 0, snapshot.maxVersionExclusive());
        }
    }

    private static void check(TimeRange range, Snapshot snapshot, TableName table, String what) {
        long bound = snapshot.maxVersionExclusive();
        if (range.getMin() == 0 && range.getMax() >= bound) {
            return;
        }
        throw new IllegalArgumentException("Time range [" + range.getMin() + ", " + range.getMax() + ") on a"
                + " transactional " + what + " of " + table + " cannot be honoured: versions of transactional cells are"
                + " write pointers (transaction start timestamps), not commit times, so a range narrower than the"
                + " snapshot's [0, " + bound + ") would hide committed versions or part of a transaction. A"
                + " transactional read sees its whole snapshot: remove the time range (or use [0, Long.MAX_VALUE)).");
    }
}
