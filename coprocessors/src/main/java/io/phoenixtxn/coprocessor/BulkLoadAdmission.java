package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.TimeRangeTracker;
import org.apache.hadoop.hbase.util.Pair;

import java.io.IOException;
import java.util.List;

/**
 * Admits HFile bulk loads into transactional tables and their indexes only from a transactional bulk load
 * ({@code io.phoenixtxn.client.BulkLoads}): every cell of every file at one version, the start timestamp of a load
 * transaction that can still commit. Such cells read as that transaction's pending writes until its commit point,
 * so nothing of the load is visible before it commits, and all of it after.
 *
 * <p>Anything else is refused before HBase moves a file into a store, so nothing of it lands: Phoenix's own
 * CsvBulkLoadTool stamps data cells with the reducer's wall-clock millisecond and index cells with transactions it
 * rolled back, and carries no commit information (its rows would never be visible, or on a table converted with
 * ALTER ... TRANSACTIONAL=true visible region by region with the index rows missing); HBase's Import or CopyTable
 * bulk output carries the versions of the source. The versions come from each file's own time-range metadata, which
 * HBase's writer records from every cell it appends.
 */
final class BulkLoadAdmission {
    private static final String REFUSED = "Bulk load of HFiles into the transactional table ";

    private BulkLoadAdmission() {
    }

    /**
     * @param commitPointSafe the commit-point horizon as this process knows it, or -1 (unknown)
     * @throws DoNotRetryIOException naming what is wrong and the tool that loads transactional tables
     */
    static void admit(TableName table, List<Pair<byte[], String>> familyPaths, Configuration conf,
                      CommitTable commitTable, long commitPointSafe) throws IOException {
        long version = -1;
        for (Pair<byte[], String> familyPath : familyPaths) {
            Path path = new Path(familyPath.getSecond());
            long[] range = versionRange(path, conf);
            if (range == null) {
                continue; // no cell: nothing to admit
            }
            if (range[0] != range[1] || version != -1 && version != range[0]) {
                throw refusal(table, "the file " + path + " holds cells at versions " + range[0] + ".." + range[1]
                        + (version != -1 ? " (another file of the load: " + version + ")" : "")
                        + "; a transactional bulk load writes every cell at its transaction's start timestamp");
            }
            version = range[0];
        }
        if (version == -1) {
            return;
        }
        if (version < PreTransactionalCells.BOUND || !TimestampLayout.isSlotStart(version)) {
            // Below the bound: a millisecond (Phoenix's own tool, HBase's Import), never a TM timestamp.
            throw refusal(table, "the files' version " + version + " is not a transaction's start timestamp");
        }
        if (commitPointSafe >= 0 && version < commitPointSafe) {
            throw refusal(table, "the load's transaction " + version + " can no longer commit (it is below the"
                    + " commit-point horizon " + commitPointSafe + ": its tool stopped, or it ran out of lease)");
        }
        CommitTable.Entry entry = commitTable.lookup(version);
        if (entry.state() != CommitTable.Entry.State.ABSENT) {
            throw refusal(table, "the load's transaction " + version + " is already "
                    + (entry.state() == CommitTable.Entry.State.COMMITTED ? "committed" : "aborted")
                    + "; files can join a load only before its commit point");
        }
    }

    /** {min, max} version of the file's cells, or null for a file without cells. */
    private static long[] versionRange(Path path, Configuration conf) throws IOException {
        FileSystem fs = path.getFileSystem(conf);
        try (HFile.Reader reader = HFile.createReader(fs, path, CacheConfig.DISABLED, true, conf)) {
            if (reader.getEntries() == 0) {
                return null;
            }
            byte[] tracked = reader.getHFileInfo().get(HStoreFile.TIMERANGE_KEY);
            if (tracked == null) {
                return new long[] {Long.MIN_VALUE, Long.MAX_VALUE}; // unknown versions: refused as mixed
            }
            TimeRangeTracker range = TimeRangeTracker.parseFrom(tracked);
            return new long[] {range.getMin(), range.getMax()};
        }
    }

    private static DoNotRetryIOException refusal(TableName table, String why) {
        return new DoNotRetryIOException(REFUSED + table + " refused: " + why + ". Load transactional tables with"
                + " io.phoenixtxn.bulkload.TransactionalCsvBulkLoadTool (Phoenix's CsvBulkLoadTool arguments; its"
                + " rows become visible at once to transactions that begin after the load), or with transactional"
                + " UPSERTs (docs/compatibility.md, \"Bulk load\").");
    }
}
