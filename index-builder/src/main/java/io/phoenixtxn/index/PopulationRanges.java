package io.phoenixtxn.index;

import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.stats.GuidePostsInfo;
import org.apache.phoenix.schema.stats.GuidePostsKey;
import org.apache.phoenix.util.PrefixByteCodec;
import org.apache.phoenix.util.SchemaUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key ranges a region-server population scans in parallel: the data table's regions, each cut at the table's
 * guideposts. Guideposts are Phoenix's statistics (collected at major compaction and by {@code UPDATE STATISTICS},
 * one every {@code phoenix.stats.guidepost.width} bytes, 100 MB by default) and the boundaries Phoenix's own
 * parallel scans use, the server-side UPSERT SELECT of a non-transactional index build included. Without them a
 * table's parallelism would be its region count: HBase splits a region only at 10 GB by default, so a table that was
 * not pre-split is one region, scanned on one thread while the population's other threads idle.
 */
final class PopulationRanges {
    private static final Logger LOG = LoggerFactory.getLogger(PopulationRanges.class);

    private PopulationRanges() {
    }

    /**
     * The table's guideposts in the family Phoenix's own scans plan by (the empty-column family), sorted; empty when
     * it has none or they cannot be read (the regions alone are then the ranges: slower, never wrong).
     */
    static List<byte[]> guideposts(PhoenixConnection connection, PTable dataTable) {
        try {
            GuidePostsInfo stats = connection.getQueryServices().getTableStats(new GuidePostsKey(
                    dataTable.getPhysicalName().getBytes(), SchemaUtil.getEmptyColumnFamily(dataTable)));
            if (stats == null || stats.isEmptyGuidePost() || stats.getGuidePostsCount() == 0) {
                return List.of();
            }
            return PrefixByteCodec.decodeBytes(stats.getGuidePosts(), stats.getMaxLength());
        } catch (SQLException | IOException | RuntimeException e) {
            LOG.info("Index population of {}: the table's guideposts could not be read, one range per region ({})",
                    dataTable.getName(), e.toString());
            return List.of();
        }
    }

    /** Ranges per population thread at most: enough to even out uneven ranges, few enough that opens stay cheap. */
    static final int RANGES_PER_THREAD = 4;

    /**
     * {@code regions} (a region locator's start and end keys, in order) with regions cut at guideposts strictly
     * inside them, at most {@code maxRanges} ranges in all (guideposts taken evenly when there are more; none when the
     * regions alone are that many: each range costs a scan open, an index-maintainer decode and a descriptor check).
     * Every key of the table stays in exactly one range: a range ends where the next starts. Guideposts come sorted
     * and unique from Phoenix; unsorted ones would only lose cuts. The ranges come round-robin over the regions (each
     * region's first range, then each one's second, ...), so the population's threads start on different regions,
     * and so on different region servers, as they did with one range per region.
     */
    static Pair<byte[][], byte[][]> cut(Pair<byte[][], byte[][]> regions, List<byte[]> guideposts, int maxRanges) {
        byte[][] regionStarts = regions.getFirst();
        byte[][] regionEnds = regions.getSecond();
        List<byte[]> cuts = evenly(guideposts, Math.max(0, maxRanges - regionStarts.length));
        List<List<byte[][]>> perRegion = new ArrayList<>();
        int next = 0; // both lists are sorted: one pass over the cuts
        for (int i = 0; i < regionStarts.length; i++) {
            List<byte[][]> ranges = new ArrayList<>();
            byte[] start = regionStarts[i];
            byte[] end = regionEnds[i];
            for (; next < cuts.size(); next++) {
                byte[] cut = cuts.get(next);
                if (GuidePostsInfo.isEmptyGpsKey(cut) || Bytes.compareTo(cut, start) <= 0) {
                    continue;
                }
                if (end.length != 0 && Bytes.compareTo(cut, end) >= 0) {
                    break; // this one and the rest lie beyond this region
                }
                ranges.add(new byte[][] {start, cut});
                start = cut;
            }
            ranges.add(new byte[][] {start, end});
            perRegion.add(ranges);
        }
        List<byte[]> starts = new ArrayList<>();
        List<byte[]> ends = new ArrayList<>();
        for (int round = 0; starts.size() < countOf(perRegion); round++) {
            for (List<byte[][]> ranges : perRegion) {
                if (round < ranges.size()) {
                    starts.add(ranges.get(round)[0]);
                    ends.add(ranges.get(round)[1]);
                }
            }
        }
        return new Pair<>(starts.toArray(new byte[0][]), ends.toArray(new byte[0][]));
    }

    /** At most {@code count} of {@code keys}, spread evenly over them, in order. */
    static List<byte[]> evenly(List<byte[]> keys, int count) {
        if (keys.size() <= count) {
            return keys;
        }
        List<byte[]> taken = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            taken.add(keys.get((int) ((long) i * keys.size() / (count + 1))));
        }
        return taken;
    }

    private static int countOf(List<List<byte[][]>> perRegion) {
        int count = 0;
        for (List<byte[][]> ranges : perRegion) {
            count += ranges.size();
        }
        return count;
    }
}
