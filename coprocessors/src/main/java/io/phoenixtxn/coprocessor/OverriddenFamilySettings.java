package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells the operator, once per table, family and setting in a region server's life, where a transactional
 * family's descriptor says something the region does not do ({@link TransactionalStoreRetention} overrides it), so
 * nobody trusts VERSIONS to bound the storage of a transactional table (compaction-time GC does; a TTL it applies).
 */
final class OverriddenFamilySettings {
    private static final Logger LOG = LoggerFactory.getLogger(OverriddenFamilySettings.class);
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private OverriddenFamilySettings() {
    }

    static void report(TableDescriptor table, TransactionalStoreRetention retention) {
        for (ColumnFamilyDescriptor family : table.getColumnFamilies()) {
            List<String> overridden = retention.overriddenSettings(family);
            for (String setting : overridden) {
                if (REPORTED.add(table.getTableName() + "/" + family.getNameAsString() + "/" + setting)) {
                    LOG.warn("Column family '{}' of transactional table {} has {}. phoenix-txn ignores it for this"
                                    + " family's reads, flushes and compactions; set VERSIONS => {} on the family to"
                                    + " make its descriptor say what happens.", family.getNameAsString(),
                            table.getTableName(), setting, Integer.MAX_VALUE);
                }
            }
        }
    }
}
