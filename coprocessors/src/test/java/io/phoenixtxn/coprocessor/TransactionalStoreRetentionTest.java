package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransactionalStoreRetentionTest {
    private final TransactionalStoreRetention retention = new TransactionalStoreRetention();

    @Test
    void everyKindOfStoreScannerKeepsEveryVersionForever() {
        List<Consumer<ScanOptions>> scanners = List.of(retention::forRead, retention::forFlush,
                options -> retention.forCompaction(ScanType.COMPACT_RETAIN_DELETES, options),
                options -> retention.forCompaction(ScanType.COMPACT_DROP_DELETES, options));
        for (Consumer<ScanOptions> scanner : scanners) {
            FakeScanOptions options = new FakeScanOptions(1, 1_000L);
            scanner.accept(options);
            assertEquals(Integer.MAX_VALUE, options.maxVersions, "all versions");
            assertEquals(Long.MAX_VALUE, options.ttl, "no TTL");
        }
    }

    @Test
    void familiesSayingOtherwiseAreDescribedSettingBySetting() {
        List<String> overridden = retention.overriddenSettings(ColumnFamilyDescriptorBuilder.newBuilder(
                Bytes.toBytes("f")).setMaxVersions(1).setTimeToLive(86_400).build());
        assertEquals(1, overridden.size(), overridden.toString() + ": a TTL is applied by compaction-time GC");
        assertTrue(overridden.get(0).startsWith("VERSIONS=1 "), overridden.get(0));
        assertEquals(List.of(), retention.overriddenSettings(ColumnFamilyDescriptorBuilder.newBuilder(
                Bytes.toBytes("f")).setMaxVersions(Integer.MAX_VALUE).build()));
    }

    /** The options HBase hands a store-scanner hook, reduced to fields. */
    private static final class FakeScanOptions implements ScanOptions {
        int maxVersions;
        long ttl;

        FakeScanOptions(int maxVersions, long ttl) {
            this.maxVersions = maxVersions;
            this.ttl = ttl;
        }

        @Override
        public int getMaxVersions() {
            return maxVersions;
        }

        @Override
        public void setMaxVersions(int maxVersions) {
            this.maxVersions = maxVersions;
        }

        @Override
        public long getTTL() {
            return ttl;
        }

        @Override
        public void setTTL(long ttl) {
            this.ttl = ttl;
        }

        @Override
        public void setKeepDeletedCells(KeepDeletedCells keepDeletedCells) {
            throw new AssertionError("retention leaves KEEP_DELETED_CELLS alone");
        }

        @Override
        public KeepDeletedCells getKeepDeletedCells() {
            return KeepDeletedCells.FALSE;
        }

        @Override
        public int getMinVersions() {
            return 0;
        }

        @Override
        public void setMinVersions(int minVersions) {
            throw new AssertionError("retention leaves MIN_VERSIONS alone");
        }

        @Override
        public long getTimeToPurgeDeletes() {
            return 0;
        }

        @Override
        public void setTimeToPurgeDeletes(long ttl) {
            throw new AssertionError("retention leaves the purge delay alone");
        }

        @Override
        public Scan getScan() {
            return null;
        }
    }
}
