package io.phoenixtxn.phoenix;

import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableKey;
import org.apache.phoenix.schema.PTableType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Keeps one invariant of Phoenix's client metadata cache that its size-bounded eviction breaks: a cached data table
 * lists only indexes whose own entries are cached too ({@code PMetaDataImpl.addTable} caches a table with all its
 * indexes). The cache (Guava, bounded by {@code phoenix.client.maxMetaDataCacheSize}) evicts entries one by one, so an
 * index entry can go while its data table's stays. Harmless until another client drops that index: Phoenix's optimizer
 * then resolves the index, gets "not found", and removes it from the data table's index list only if the index's own
 * entry is cached (MetaDataClient.updateCache); with the entry evicted it removes nothing, the server answers the data
 * table's resolution with "unchanged" (DROP INDEX leaves its timestamp alone), and every later query on the table
 * through that connection service fails with TABLE_UNDEFINED (1012) naming the dropped index (design.md sec. 4.10).
 *
 * <p>The repair removes such a data table from the connection service's cache; its next resolution reads it from the
 * server as it is now, with the indexes that exist, each cached again. It only removes entries (no churn against the
 * cache's bound) and only transactional tables' (the ones this provider answers for). It runs periodically per
 * connection service ({@code phoenix.txn.metadata.repair.ms}) and at once when a transaction that wrote nothing is
 * rolled back, which is what an application does after a failed read (paced:
 * {@link PhoenixTxnClient#repairMetadataAfterReadOnlyRollback}).
 */
final class MetadataCacheRepair {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataCacheRepair.class);

    private MetadataCacheRepair() {
    }

    /** Removes every cached transactional table that lists an index not cached itself; returns how many. */
    static int repair(ConnectionQueryServices services) {
        List<PTable> cached = new ArrayList<>();
        Set<PTableKey> present = new HashSet<>();
        try {
            for (PTable table : services.getMetaDataCache()) {
                cached.add(table);
                present.add(table.getKey());
            }
        } catch (RuntimeException e) {
            // A closed connection service has no cache to repair; Phoenix throws from its accessors then.
            LOG.debug("Could not read the metadata cache of {}", services, e);
            return 0;
        }
        int removed = 0;
        for (PTable table : cached) {
            PTable missing = evictedIndexOf(table, present);
            if (missing == null) {
                continue;
            }
            try {
                services.removeTable(table.getTenantId(), table.getName().getString(), null, table.getTimeStamp());
                removed++;
                LOG.info("Removed {} from this connection service's metadata cache: it listed index {}, whose own"
                        + " entry the cache had evicted; its next use reads it from the server (design.md sec. 4.10)",
                        table.getName(), missing.getName());
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Could not remove {} from the metadata cache", table.getName(), e);
            }
        }
        return removed;
    }

    /** An index {@code table} lists whose own entry is not in {@code present}, or null. */
    static PTable evictedIndexOf(PTable table, Set<PTableKey> present) {
        // Tables only: a view's list also holds its ancestors' indexes under view-specific names Phoenix manages.
        if (!table.isTransactional() || table.getType() != PTableType.TABLE) {
            return null;
        }
        for (PTable index : table.getIndexes()) {
            if (!present.contains(index.getKey())) {
                return index;
            }
        }
        return null;
    }
}
