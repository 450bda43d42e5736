package io.phoenixtxn.index;

import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PopulationRangesTest {
    private static final byte[] FIRST = new byte[0];
    private static final byte[] LAST = new byte[0];

    @Test
    void withoutGuidepostsTheRangesAreTheRegions() {
        Pair<byte[][], byte[][]> regions = regions("m");
        assertEquals(List.of("[,m)", "[m,)"), describe(PopulationRanges.cut(regions, List.of(), 100)));
    }

    @Test
    void eachRegionIsCutAtTheGuidepostsStrictlyInsideIt() {
        // "m" is a region boundary and a guidepost: no empty range; "a" and "z" fall in the first and last region.
        Pair<byte[][], byte[][]> regions = regions("m");
        List<byte[]> guideposts = keys("", "a", "f", "m", "q", "z");
        assertEquals(List.of("[,a)", "[a,f)", "[f,m)", "[m,q)", "[q,z)", "[z,)"),
                describe(PopulationRanges.cut(regions, guideposts, 100)));
    }

    @Test
    void guidepostsOfAnotherLayoutThanTheRegionsStillLeaveEveryKeyInOneRange() {
        // Stale statistics: guideposts from before a split, none in the middle region.
        Pair<byte[][], byte[][]> regions = regions("g", "p");
        List<byte[]> guideposts = keys("b", "c", "s");
        assertEquals(List.of("[,b)", "[b,c)", "[c,g)", "[g,p)", "[p,s)", "[s,)"),
                describe(PopulationRanges.cut(regions, guideposts, 100)));
    }

    @Test
    void theRangesComeRoundRobinOverTheRegionsSoThreadsStartOnDifferentRegions() {
        Pair<byte[][], byte[][]> regions = regions("m");
        assertEquals(List.of("[,c)", "[m,q)", "[c,f)", "[q,)", "[f,m)"),
                inOrderGiven(PopulationRanges.cut(regions, keys("c", "f", "q"), 100)));
    }

    @Test
    void manyGuidepostsAreThinnedEvenlyToTheRangeBudget() {
        List<byte[]> guideposts = new ArrayList<>();
        for (char c = 'a'; c <= 'y'; c++) {
            guideposts.add(Bytes.toBytes(String.valueOf(c)));
        }
        // 25 guideposts, one region, a budget of 6 ranges: 5 cuts spread over the guideposts.
        assertEquals(List.of("[,e)", "[e,i)", "[i,m)", "[m,q)", "[q,u)", "[u,)"),
                describe(PopulationRanges.cut(regions(), guideposts, 6)));
        // As many regions as the budget: no cuts at all.
        assertEquals(List.of("[,m)", "[m,)"), describe(PopulationRanges.cut(regions("m"), guideposts, 2)));
    }

    private static Pair<byte[][], byte[][]> regions(String... boundaries) {
        byte[][] starts = new byte[boundaries.length + 1][];
        byte[][] ends = new byte[boundaries.length + 1][];
        starts[0] = FIRST;
        for (int i = 0; i < boundaries.length; i++) {
            ends[i] = Bytes.toBytes(boundaries[i]);
            starts[i + 1] = ends[i];
        }
        ends[boundaries.length] = LAST;
        return new Pair<>(starts, ends);
    }

    private static List<byte[]> keys(String... keys) {
        List<byte[]> out = new ArrayList<>();
        for (String key : keys) {
            out.add(Bytes.toBytes(key));
        }
        return out;
    }

    /** The ranges in key order (they come round-robin over the regions). */
    private static List<String> describe(Pair<byte[][], byte[][]> ranges) {
        List<String> out = inOrderGiven(ranges);
        out.sort((a, b) -> a.startsWith("[,") ? -1 : b.startsWith("[,") ? 1 : a.compareTo(b));
        return out;
    }

    private static List<String> inOrderGiven(Pair<byte[][], byte[][]> ranges) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < ranges.getFirst().length; i++) {
            out.add("[" + Bytes.toString(ranges.getFirst()[i]) + "," + Bytes.toString(ranges.getSecond()[i]) + ")");
        }
        return out;
    }
}
