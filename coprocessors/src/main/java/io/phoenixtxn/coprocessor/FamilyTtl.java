package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A family's TTL on transactional data, one rule for readers and for compaction-time GC: a committed version whose
 * commit timestamp's millisecond part is more than the TTL older than a point in time has expired at that point.
 * Readers take the point at their snapshot's start (so a snapshot never sees a value expire under it: repeatable
 * reads), GC at its horizon, which every live snapshot starts at or above (so GC drops only what every live reader
 * already reads as expired). HBase's own TTL on cell versions is not applied to these stores (our versions are start
 * timestamps in ms x 10^6, and data, commit cells and markers must expire together).
 *
 * <p>The TTL is the family's {@value #PHOENIX_TRANSACTIONAL_TTL} value when present, in seconds: Phoenix 5.2 moves a
 * transactional table's {@code TTL} there (off the HBase family TTL, which would apply to wall-clock versions) on
 * CREATE TABLE, ALTER TABLE ... SET TTL and for the table's indexes. Otherwise the HBase family TTL is taken, for tables
 * created through HBase.
 */
public final class FamilyTtl {
    private static final Logger LOG = LoggerFactory.getLogger(FamilyTtl.class);
    /** Phoenix's transactional TTL family attribute (PhoenixTransactionContext.PROPERTY_TTL), seconds. */
    static final String PHOENIX_TRANSACTIONAL_TTL = "dataset.table.ttl";

    private FamilyTtl() {
    }

    /** The family's TTL in seconds, or 0 for none. */
    static long ttlSeconds(ColumnFamilyDescriptor family) {
        String phoenixTtl = family.getValue(PHOENIX_TRANSACTIONAL_TTL); // Phoenix sets it with setValue
        if (phoenixTtl != null) {
            try {
                long seconds = Long.parseLong(phoenixTtl.trim());
                return seconds == HConstants.FOREVER || seconds <= 0 ? 0 : seconds;
            } catch (NumberFormatException e) {
                // Phoenix writes a number; anything else would be a hand-edited descriptor. Expire nothing rather
                // than guess, and say so once per lookup (region open and per reader family change).
                LOG.warn("Ignoring {}='{}' on family {}: not a number of seconds", PHOENIX_TRANSACTIONAL_TTL,
                        phoenixTtl, family.getNameAsString());
                return 0;
            }
        }
        int hbaseTtl = family.getTimeToLive();
        return hbaseTtl == HConstants.FOREVER || hbaseTtl <= 0 ? 0 : hbaseTtl;
    }

    /** Commit timestamps below this have expired at {@code at}; {@link Long#MIN_VALUE} without a TTL. */
    public static long expiredBelow(ColumnFamilyDescriptor family, long at) {
        if (family == null) {
            return Long.MIN_VALUE;
        }
        long ttlSeconds = ttlSeconds(family);
        if (ttlSeconds == 0) {
            return Long.MIN_VALUE;
        }
        long ttlMillis = ttlSeconds > Long.MAX_VALUE / 1_000L ? Long.MAX_VALUE : ttlSeconds * 1_000L;
        long millis = TimestampLayout.millisOf(at) - ttlMillis;
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
