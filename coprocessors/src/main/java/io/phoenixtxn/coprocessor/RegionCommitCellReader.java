package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitCellReader;
import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.snapshot.Visibility;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.Region;

import java.io.IOException;
import java.util.List;

/** Reads a commit cell from the local region, bypassing coprocessors (no RPC, no recursion into observers). */
final class RegionCommitCellReader implements CommitCellReader {
    private final Region region;
    private final org.apache.hadoop.hbase.client.Connection connection;

    RegionCommitCellReader(Region region, org.apache.hadoop.hbase.client.Connection connection) {
        this.region = region;
        this.connection = connection;
    }

    @Override
    public void committedWithoutCommitCell(byte[] row, byte[] family, byte[] qualifier, long version, long commitTs) {
        CommitCellHealer.heal(connection, region.getTableDescriptor().getTableName(), row, family, qualifier, version,
                commitTs);
    }

    @Override
    public long read(byte[] row, byte[] family, byte[] qualifier, long version) throws IOException {
        Get get = new Get(row).addColumn(family, OnDiskLayout.commitQualifier(qualifier)).setTimestamp(version);
        List<Cell> cells = region instanceof HRegion ? ((HRegion) region).get(get, false)
                : region.get(get).listCells();
        if (cells == null || cells.isEmpty()) {
            return Visibility.NOT_COMMITTED;
        }
        return OnDiskLayout.commitTimestampOf(cells.get(0));
    }
}
