package io.phoenixtxn.index;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Function;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.tm.TxnSettings;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The population step of an online CREATE INDEX on a transactional table (design.md sec. 4.4), run by the
 * population transaction (id and snapshot at the fence) before Phoenix's own pass: on the region servers where it
 * can ({@link PopulationPlan}, {@link RegionServerPopulation}); Phoenix's pass then finds nothing left to do (the
 * provider answers its scans of the data table with no rows). Where it cannot, Phoenix's pass populates.
 */
public final class IndexPopulation {
    private static final Logger LOG = LoggerFactory.getLogger(IndexPopulation.class);

    private IndexPopulation() {
    }

    /**
     * Populates {@code dataTable}'s BUILDING indexes on the region servers at {@code population}'s snapshot.
     * Returns true when done there, false when Phoenix's own pass must populate (switched off, an index or table
     * this path does not serve, region servers without it). Throws when a region failed after its attempts.
     */
    public static boolean onRegionServers(PhoenixConnection connection, PTable dataTable, TxnClient client,
                                          Connection hbase, Transaction population, IndexBuildProgress progress,
                                          Function<String, String> settings) throws IOException, SQLException {
        if (!TxnSettings.INDEX_POPULATION_ON_REGION_SERVERS.get(settings)) {
            LOG.info("Index population of {} runs through the client: {}=false", dataTable.getName(),
                    TxnSettings.INDEX_POPULATION_ON_REGION_SERVERS.key());
            return false;
        }
        Optional<PopulationPlan> plan = PopulationPlan.of(connection, dataTable);
        if (plan.isEmpty()) {
            return false;
        }
        RegionServerPopulation.Settings limits = new RegionServerPopulation.Settings(
                Math.toIntExact(TxnSettings.INDEX_POPULATION_THREADS.get(settings)),
                Math.toIntExact(TxnSettings.INDEX_POPULATION_PAGE_ROWS.get(settings)),
                Math.toIntExact(TxnSettings.INDEX_POPULATION_PAGE_MS.get(settings)),
                Math.toIntExact(TxnSettings.INDEX_POPULATION_BATCH_ROWS.get(settings)),
                Math.toIntExact(TxnSettings.INDEX_POPULATION_ATTEMPTS.get(settings)));
        Pair<byte[][], byte[][]> regions;
        try (RegionLocator locator = hbase.getRegionLocator(plan.get().dataTable())) {
            regions = locator.getStartEndKeys();
        }
        Pair<byte[][], byte[][]> ranges = PopulationRanges.cut(regions,
                PopulationRanges.guideposts(connection, dataTable),
                PopulationRanges.RANGES_PER_THREAD * limits.threads());
        String indexes = String.join(",", plan.get().indexNames());
        progress.onRegionServers(indexes, regions.getFirst().length, ranges.getFirst().length);
        LOG.info("Index population of {} on {} at fence {}: on the region servers, {} regions in {} key ranges",
                indexes, plan.get().dataTable(), progress.getFenceTimestamp(), regions.getFirst().length,
                ranges.getFirst().length);
        try (TransactionalTable table = client.table(plan.get().dataTable())) {
            new RegionServerPopulation(scan -> table.getScanner(population, scan), limits)
                    .run(ranges, plan.get().maintainers(), population.writePointer(), progress);
        } catch (RegionServerPopulation.NotSupportedException e) {
            LOG.warn("Index population of {} falls back to Phoenix's pass through the client: {}", indexes,
                    e.getMessage());
            progress.throughTheClient();
            return false;
        }
        progress.populatedOnRegionServers();
        return true;
    }
}
