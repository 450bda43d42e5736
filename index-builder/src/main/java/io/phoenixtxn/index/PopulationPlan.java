package io.phoenixtxn.index;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.phoenix.index.IndexMaintainer;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PIndexState;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a region-server population fills: the one index of the data table that is BUILDING in the connection's
 * metadata cache when the population transaction begins, the index the running CREATE INDEX just created (Phoenix
 * added it to this connection's cache as BUILDING and marks it ACTIVE only after the population). When the cache
 * lists more than one BUILDING index (another client's concurrent build, or one a failed build left behind) it is
 * not known here which one Phoenix's pass fills, and Phoenix's pass populates.
 *
 * <p>Only a plain table's own indexes are populated here. A view's index (its rows are a subset of the physical
 * table's, chosen by the view's WHERE and tenant), a partial index ({@code CREATE INDEX ... WHERE}), an uncovered
 * or local index, a table being transformed and a tenant-specific connection keep Phoenix's own pass through the
 * client.
 */
public final class PopulationPlan {
    private static final Logger LOG = LoggerFactory.getLogger(PopulationPlan.class);

    private final TableName dataTable;
    private final byte[] maintainers;
    private final List<String> indexNames;

    private PopulationPlan(TableName dataTable, byte[] maintainers, List<String> indexNames) {
        this.dataTable = dataTable;
        this.maintainers = maintainers;
        this.indexNames = indexNames;
    }

    /** The plan for the population of {@code dataTable}'s BUILDING indexes, or empty where Phoenix's pass stays. */
    public static Optional<PopulationPlan> of(PhoenixConnection connection, PTable dataTable) throws SQLException {
        String refusal = refusal(connection, dataTable);
        if (refusal != null) {
            LOG.info("Index population of {} runs through the client (Phoenix's pass): {}", dataTable.getName(),
                    refusal);
            return Optional.empty();
        }
        PTable current = connection.getTable(dataTable.getName().getString());
        List<PTable> building = new ArrayList<>();
        for (PTable index : current.getIndexes()) {
            if (index.getIndexState() == PIndexState.BUILDING) {
                String indexRefusal = indexRefusal(index);
                if (indexRefusal != null) {
                    LOG.info("Index population of {} runs through the client (Phoenix's pass): index {} {}",
                            dataTable.getName(), index.getName(), indexRefusal);
                    return Optional.empty();
                }
                building.add(index);
            }
        }
        if (building.size() != 1) {
            // The one CREATE INDEX being built is the connection's only BUILDING index; with more (another client's
            // concurrent build, one left behind by a failed build) which one Phoenix's pass fills is not known here.
            LOG.info("Index population of {} runs through the client (Phoenix's pass): {} BUILDING indexes in this"
                    + " connection's metadata, not one", dataTable.getName(), building.size());
            return Optional.empty();
        }
        ImmutableBytesWritable serialized = new ImmutableBytesWritable();
        IndexMaintainer.serialize(current, serialized, building, connection);
        byte[] maintainers = new byte[serialized.getLength()];
        System.arraycopy(serialized.get(), serialized.getOffset(), maintainers, 0, maintainers.length);
        return Optional.of(new PopulationPlan(TableName.valueOf(current.getPhysicalName().getBytes()), maintainers,
                building.stream().map(i -> i.getName().getString()).collect(Collectors.toList())));
    }

    private static String refusal(PhoenixConnection connection, PTable dataTable) {
        if (connection.getTenantId() != null) {
            return "tenant-specific connection";
        }
        if (dataTable.getType() != PTableType.TABLE) {
            return "a " + dataTable.getType() + ", not a table";
        }
        if (dataTable.getTransformingNewTable() != null) {
            return "the table is being transformed";
        }
        return null;
    }

    private static String indexRefusal(PTable index) {
        if (index.getViewIndexId() != null) {
            return "is a view index";
        }
        if (index.getIndexWhere() != null) {
            return "is a partial index";
        }
        if (index.getIndexType() != PTable.IndexType.GLOBAL) {
            return "is of type " + index.getIndexType();
        }
        return null;
    }

    public TableName dataTable() {
        return dataTable;
    }

    byte[] maintainers() {
        return maintainers;
    }

    public List<String> indexNames() {
        return indexNames;
    }
}
