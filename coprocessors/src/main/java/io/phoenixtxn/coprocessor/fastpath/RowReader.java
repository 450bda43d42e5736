package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.coprocessor.FamilyTtl;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one row of the local region as the fast path sees it ({@link RowState}): a region-internal scan (no observer
 * runs) bounded by {@link NewestCommittedFilter}, then a whole read of any column it could not decide. A version
 * without a commit cell is decided through the commit table, then, if the table has no entry, by its commit cell read
 * again: a writer deletes its entry only after its commit cells are durable, so a commit the scan missed is found by
 * the second look (the order of CommitResolver). Without either the writer may still commit: pending. No TM question,
 * no waiting, no force-abort: the fast path never holds back a regular transaction (VLDB'18 sec. 4.2). Values whose
 * commit expired by the family's TTL ({@link FamilyTtl}) at the present are not visible.
 */
final class RowReader {
    private final Region region;
    private final CommitTable commitTable;

    RowReader(Region region, CommitTable commitTable) {
        this.region = region;
        this.commitTable = commitTable;
    }

    RowState read(byte[] row) throws IOException {
        RowState.Resolver resolver = resolverFor(row);
        RowState state = RowState.analyze(row, scan(new Get(row).readAllVersions(), new NewestCommittedFilter()),
                resolver, NewestCommittedFilter.LIMIT);
        for (RowState.Column column : state.undecidedColumns()) {
            Get whole = new Get(row).readAllVersions().addColumn(column.family, column.qualifier)
                    .addColumn(column.family, OnDiskLayout.commitQualifier(column.qualifier));
            state = state.withColumn(column, scan(whole, null), resolver);
        }
        // TTL at now: the fast path reads and writes at the present (its versions lag wall time by at most the
        // clock's maximum slot age)
        long now = TimestampLayout.firstSlotOfMillis(System.currentTimeMillis());
        TableDescriptor table = region.getTableDescriptor();
        return state.expiring(family -> FamilyTtl.expiredBelow(table.getColumnFamily(family), now));
    }

    /** The cells a region-internal scan returns for one row, copied (the scanner's memory is reused after close). */
    private List<Cell> scan(Get get, Filter filter) throws IOException {
        Scan scan = new Scan(get);
        if (filter != null) {
            scan.setFilter(filter);
        }
        List<Cell> cells = new ArrayList<>();
        try (RegionScanner scanner = region.getScanner(scan)) {
            scanner.next(cells);
        }
        List<Cell> copies = new ArrayList<>(cells.size());
        for (Cell cell : cells) {
            copies.add(KeyValueUtil.copyToNewKeyValue(cell));
        }
        return copies;
    }

    /** Commit-table answers are kept per writer for the one row: a row's versions share few writers. */
    private RowState.Resolver resolverFor(byte[] row) {
        Map<Long, CommitTable.Entry> entries = new HashMap<>(4);
        return (family, qualifier, version) -> {
            long writer = TimestampLayout.txIdOf(version);
            CommitTable.Entry entry = entries.get(writer);
            if (entry == null) {
                entry = commitTable.lookup(writer);
                entries.put(writer, entry);
            }
            switch (entry.state()) {
                case COMMITTED:
                    return entry.commitTs();
                case INVALIDATED:
                    return Visibility.NOT_COMMITTED;
                default:
                    long fromCell = commitCell(row, family, qualifier, version);
                    return fromCell != Visibility.NOT_COMMITTED ? fromCell : RowState.PENDING;
            }
        };
    }

    private long commitCell(byte[] row, byte[] family, byte[] qualifier, long version) throws IOException {
        Get get = new Get(row).addColumn(family, OnDiskLayout.commitQualifier(qualifier)).setTimestamp(version);
        List<Cell> cells = scan(get, null);
        return cells.isEmpty() ? Visibility.NOT_COMMITTED : OnDiskLayout.commitTimestampOf(cells.get(0));
    }
}
