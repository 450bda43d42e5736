package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.coprocessor.FamilyTtl;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.snapshot.Visibility;
import io.phoenixtxn.tm.Horizon;
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
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads one row of the local region as the fast path sees it ({@link RowState}): a region-internal scan (no observer
 * runs) bounded by {@link NewestCommittedFilter}, then a whole read of any column it could not decide. A version
 * without a commit cell is decided by {@link TentativeVersionResolver}: the commit table, then its commit cell read
 * again (a writer deletes its entry only after its commit cells are durable, so a commit the scan missed is found by
 * the second look: the order of CommitResolver), then the region server's horizons: a writer below the commit-point
 * horizon is aborted, and for a fast-path write ({@link #readForWrite}) one below the GC horizon is force-aborted
 * through the commit table (it is not live: a dead client's versions must not block the row's fast-path writes).
 * Any other writer may still commit: pending. No TM question and no waiting: the fast path never holds back a live
 * regular transaction (VLDB'18 sec. 4.2). Values whose commit expired by the family's TTL ({@link FamilyTtl}) at the
 * present are not visible. In a table made transactional after it was written, a pre-switch cell is committed at its
 * version ({@link PreTransactionalCells}), decided before any writer look-up: its "writer" would read as dead.
 */
final class RowReader {
    private final Region region;
    private final CommitTable commitTable;
    private final Supplier<Horizon> horizon;
    private final PreTransactionalCells preTransactional;

    /** @param horizon the region server's horizons ({@code GcHorizon.current()}; unknown: no writer is taken dead) */
    RowReader(Region region, CommitTable commitTable, Supplier<Horizon> horizon) {
        this(region, commitTable, horizon, PreTransactionalCells.NONE);
    }

    RowReader(Region region, CommitTable commitTable, Supplier<Horizon> horizon,
              PreTransactionalCells preTransactional) {
        this.region = region;
        this.commitTable = commitTable;
        this.horizon = horizon;
        this.preTransactional = preTransactional;
    }

    /** The row for a read (brc, br) or a check: writers that may still commit are reported pending. */
    RowState read(byte[] row) throws IOException {
        return read(row, TentativeVersionResolver.Mode.REPORT_PENDING);
    }

    /** The row for a fast-path write, under its exclusive row lock: dead writers are force-aborted. */
    RowState readForWrite(byte[] row) throws IOException {
        return read(row, TentativeVersionResolver.Mode.FORCE_ABORT_DEAD);
    }

    private RowState read(byte[] row, TentativeVersionResolver.Mode mode) throws IOException {
        RowState.Resolver resolver = new TentativeVersionResolver(row, commitTable, this::commitCell, horizon, mode);
        RowState state = RowState.analyze(row, scan(new Get(row).readAllVersions(), new NewestCommittedFilter()),
                resolver, NewestCommittedFilter.LIMIT, preTransactional);
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

    private long commitCell(byte[] row, byte[] family, byte[] qualifier, long version) throws IOException {
        Get get = new Get(row).addColumn(family, OnDiskLayout.commitQualifier(qualifier)).setTimestamp(version);
        List<Cell> cells = scan(get, null);
        return cells.isEmpty() ? Visibility.NOT_COMMITTED : OnDiskLayout.commitTimestampOf(cells.get(0));
    }
}
