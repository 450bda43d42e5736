package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;

/**
 * A family's TTL on transactional data, one rule for readers and for compaction-time GC: a committed version whose
 * commit timestamp's millisecond part is more than the TTL older than a point in time has expired at that point.
 * Readers take the point at their snapshot's start (so a snapshot never sees a value expire under it: repeatable
 * reads), GC at its horizon, which every live snapshot starts at or above (so GC drops only what every live reader
 * already reads as expired). HBase's own TTL on cell versions is not applied to these stores (our versions are start
 * timestamps in ms x 10^6, and data, commit cells and markers must expire together).
 */
final class FamilyTtl {
    private FamilyTtl() {
    }

    /** Commit timestamps below this have expired at {@code at}; {@link Long#MIN_VALUE} without a TTL. */
    static long expiredBelow(ColumnFamilyDescriptor family, long at) {
        if (family == null) {
            return Long.MIN_VALUE;
        }
        int ttlSeconds = family.getTimeToLive();
        if (ttlSeconds == HConstants.FOREVER || ttlSeconds <= 0) {
            return Long.MIN_VALUE;
        }
        long millis = TimestampLayout.millisOf(at) - ttlSeconds * 1_000L;
        return millis <= 0 ? Long.MIN_VALUE : Math.min(TimestampLayout.firstSlotOfMillis(millis), at);
    }

    /** Per family of a table, for one reader: the bound at its snapshot's start, looked up once per family change. */
    static final class ForReader {
        static final ForReader NONE = new ForReader(null, 0);

        private final TableDescriptor table;
        private final long start;
        private Cell lastFamily;
        private long lastBound = Long.MIN_VALUE;

        ForReader(TableDescriptor table, long start) {
            this.table = table;
            this.start = start;
        }

        long expiredBelow(Cell cellOfFamily) {
            if (table == null) {
                return Long.MIN_VALUE;
            }
            if (lastFamily == null || !CellUtil.matchingFamily(cellOfFamily, lastFamily)) {
                lastFamily = cellOfFamily;
                lastBound = FamilyTtl.expiredBelow(table.getColumnFamily(CellUtil.cloneFamily(cellOfFamily)), start);
            }
            return lastBound;
        }
    }
}
