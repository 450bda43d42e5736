package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.fastpath.FastPathSwitch;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.function.Supplier;

/**
 * A region of table t (family f, fast path on) holding the cells a {@link RowCells} describes, for the fast path's
 * region-internal scans: a scan honours its columns, its time range and its filter's INCLUDE / SKIP / NEXT_COL
 * answers, as an HBase region scanner does for one row. Anything else the region is asked fails the test.
 */
final class FakeRowRegion {
    private FakeRowRegion() {
    }

    static Region of(Supplier<List<Cell>> cells) {
        return (Region) Proxy.newProxyInstance(Region.class.getClassLoader(), new Class<?>[] {Region.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getScanner" -> scanner((Scan) args[0], cells.get());
                    case "getRegionInfo" -> RegionInfoBuilder.newBuilder(TableName.valueOf("t")).build();
                    case "getTableDescriptor" -> org.apache.hadoop.hbase.client.TableDescriptorBuilder
                            .newBuilder(TableName.valueOf("t")).setColumnFamily(ColumnFamilyDescriptorBuilder
                                    .of(RowCells.F)).setValue(FastPathSwitch.ATTRIBUTE, "true").build();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static RegionScanner scanner(Scan scan, List<Cell> cells) {
        return (RegionScanner) Proxy.newProxyInstance(RegionScanner.class.getClassLoader(),
                new Class<?>[] {RegionScanner.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "next", "nextRaw" -> {
                        @SuppressWarnings("unchecked")
                        List<Cell> out = (List<Cell>) args[0];
                        out.addAll(select(scan, cells));
                        yield false;
                    }
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static List<Cell> select(Scan scan, List<Cell> cells) throws IOException {
        List<Cell> out = new java.util.ArrayList<>();
        Filter filter = scan.getFilter();
        Cell skipColumn = null;
        for (Cell cell : cells) {
            if (!asked(scan.getFamilyMap(), cell) || !scan.getTimeRange().withinTimeRange(cell.getTimestamp())) {
                continue;
            }
            if (skipColumn != null && CellUtil.matchingColumn(cell, skipColumn)) {
                continue;
            }
            skipColumn = null;
            Filter.ReturnCode code = filter == null ? Filter.ReturnCode.INCLUDE : filter.filterCell(cell);
            switch (code) {
                case INCLUDE -> out.add(cell);
                case INCLUDE_AND_NEXT_COL -> {
                    out.add(cell);
                    skipColumn = cell;
                }
                case NEXT_COL -> skipColumn = cell;
                case SKIP -> { }
                default -> throw new UnsupportedOperationException("filter answered " + code);
            }
        }
        return out;
    }

    private static boolean asked(Map<byte[], NavigableSet<byte[]>> families, Cell cell) {
        if (families.isEmpty()) {
            return true;
        }
        for (Map.Entry<byte[], NavigableSet<byte[]>> f : families.entrySet()) {
            if (CellUtil.matchingFamily(cell, f.getKey())) {
                return f.getValue() == null || f.getValue().isEmpty()
                        || f.getValue().contains(CellUtil.cloneQualifier(cell));
            }
        }
        return false;
    }

}
