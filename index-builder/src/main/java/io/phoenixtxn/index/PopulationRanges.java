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

    /**
     * {@code regions} (a region locator's start and end keys, in order) with each region cut at every guidepost
     * strictly inside it. Every key of the table stays in exactly one range: a range ends where the next starts.
     */
    static Pair<byte[][], byte[][]> cut(Pair<byte[][], byte[][]> regions, List<byte[]> guideposts) {
        List<byte[]> starts = new ArrayList<>();
        List<byte[]> ends = new ArrayList<>();
        byte[][] regionStarts = regions.getFirst();
        byte[][] regionEnds = regions.getSecond();
        int next = 0; // both lists are sorted: one pass over the guideposts
        for (int i = 0; i < regionStarts.length; i++) {
            byte[] start = regionStarts[i];
            byte[] end = regionEnds[i];
            for (; next < guideposts.size(); next++) {
                byte[] guidepost = guideposts.get(next);
                if (GuidePostsInfo.isEmptyGpsKey(guidepost) || Bytes.compareTo(guidepost, start) <= 0) {
                    continue;
                }
                if (end.length != 0 && Bytes.compareTo(guidepost, end) >= 0) {
                    break; // this one and the rest lie beyond this region
                }
                starts.add(start);
                ends.add(guidepost);
                start = guidepost;
            }
            starts.add(start);
            ends.add(end);
        }
        return new Pair<>(starts.toArray(new byte[0][]), ends.toArray(new byte[0][]));
    }
}
