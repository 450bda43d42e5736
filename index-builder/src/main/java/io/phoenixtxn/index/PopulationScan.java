package io.phoenixtxn.index;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.OperationWithAttributes;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The wire form of a region-server population: a transactional scan of a data table's key range (at the
 * population's snapshot) that carries these attributes is answered by {@link PopulatingRegionScanner} instead of
 * returning rows. The region server writes the index rows of the rows it scans and returns one progress result
 * per page: row key = the last data row whose index rows are written (so an HBase client scanner that reopens after
 * a region move, split or server crash resumes right after it), value = rows scanned and index rows written in
 * that page. Shared by the client ({@link RegionServerPopulation}) and the region server.
 */
public final class PopulationScan {
    /** Serialized Phoenix index maintainers (proto form) of the indexes to populate. */
    static final String MAINTAINERS = "phoenix.txn.population.maintainers";
    /** The version (and commit timestamp) of every index cell written: the population's write pointer, at the fence. */
    static final String VERSION = "phoenix.txn.population.version";
    /** Page limits: rows per page (int), then milliseconds per page (int). */
    static final String PAGE = "phoenix.txn.population.page";
    /** Index rows per write batch (int): what a region server holds in memory for one population scan. */
    static final String BATCH = "phoenix.txn.population.batch";
    /** Marks an index row a population writes, so the region server does not count it as other work. */
    static final String WRITE = "phoenix.txn.population.write";
    private static final byte[] WRITE_MARK = new byte[0];

    static final byte[] FAMILY = Bytes.toBytes("phoenix.txn.population");
    static final byte[] PROGRESS = Bytes.toBytes("progress");

    private PopulationScan() {
    }

    /** Marks {@code scan} as a population of the given indexes, writing at {@code version}. */
    static Scan mark(Scan scan, byte[] maintainers, long version, int pageRows, int pageMillis, int batchRows) {
        scan.setAttribute(MAINTAINERS, maintainers);
        scan.setAttribute(VERSION, Bytes.toBytes(version));
        scan.setAttribute(PAGE, Bytes.add(Bytes.toBytes(pageRows), Bytes.toBytes(pageMillis)));
        scan.setAttribute(BATCH, Bytes.toBytes(batchRows));
        return scan;
    }

    static boolean isPopulation(Scan scan) {
        return scan.getAttribute(MAINTAINERS) != null;
    }

    /** Marks {@code indexRow} as a population's own write ({@link PopulationPacer}). */
    static void markWrite(OperationWithAttributes indexRow) {
        indexRow.setAttribute(WRITE, WRITE_MARK);
    }

    /**
     * Whether a read or a write of a transactional table is a population's own: its scan, or an index row it
     * writes. Everything else is work a population yields to ({@link PopulationPacer#foregroundSeen}).
     */
    public static boolean isPopulationWork(OperationWithAttributes operation) {
        return operation.getAttribute(MAINTAINERS) != null || operation.getAttribute(WRITE) != null;
    }

    static long version(Scan scan) {
        return Bytes.toLong(scan.getAttribute(VERSION));
    }

    static int pageRows(Scan scan) {
        return Bytes.toInt(scan.getAttribute(PAGE), 0);
    }

    static int pageMillis(Scan scan) {
        return Bytes.toInt(scan.getAttribute(PAGE), Bytes.SIZEOF_INT);
    }

    static int batchRows(Scan scan) {
        return Bytes.toInt(scan.getAttribute(BATCH));
    }

    /** The progress cell of one page. */
    static Cell progressCell(byte[] lastRow, long scanned, long written) {
        return new KeyValue(lastRow, FAMILY, PROGRESS, 0L, Bytes.add(Bytes.toBytes(scanned), Bytes.toBytes(written)));
    }

    /** A page's progress from a scan result; {@code null} when the result is not one (a server without it). */
    static Page page(Result result) {
        Cell cell = result.getColumnLatestCell(FAMILY, PROGRESS);
        if (cell == null || cell.getValueLength() != 2 * Bytes.SIZEOF_LONG) {
            return null;
        }
        byte[] value = CellUtil.cloneValue(cell);
        return new Page(result.getRow(), Bytes.toLong(value, 0), Bytes.toLong(value, Bytes.SIZEOF_LONG));
    }

    /** One page of a region's population as the client receives it. */
    record Page(byte[] lastRow, long scanned, long written) {
        @Override
        public String toString() {
            return "Page{" + Bytes.toStringBinary(lastRow) + ", scanned=" + scanned + ", written=" + written + "}";
        }
    }
}
