package io.phoenixtxn.it.client;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.it.SharedStack;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static io.phoenixtxn.it.client.ClientTables.commitValue;
import static io.phoenixtxn.it.client.ClientTables.read;
import static io.phoenixtxn.it.client.ClientTables.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A transactional store keeps every version whatever its family says: with VERSIONS=1 (the HBase API's default)
 * an open transaction's tentative version must neither hide the committed one from readers nor push it out at a
 * flush or a compaction, with or without a TTL on the family. The TTL here (one day) is far longer than the test:
 * a TTL does expire committed versions, by their commit time and the reader's start (FamilyTtl, PhoenixTtlIT); a
 * 1-second TTL made this test depend on how long a flush and a compaction take (it failed when they took more
 * than a second on a loaded machine, v1 rightly expired).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class VersionRetentionIT {
    private static final int DAY_SECONDS = 86_400;

    /** Family settings that HBase would let prune versions a snapshot still needs. */
    enum FamilyShape {
        ONE_VERSION(f -> f.setMaxVersions(1)),
        ONE_VERSION_AND_TTL(f -> f.setMaxVersions(1).setTimeToLive(DAY_SECONDS)),
        ALL_VERSIONS_AND_TTL(f -> f.setMaxVersions(Integer.MAX_VALUE).setTimeToLive(DAY_SECONDS));

        final UnaryOperator<ColumnFamilyDescriptorBuilder> family;

        FamilyShape(UnaryOperator<ColumnFamilyDescriptorBuilder> family) {
            this.family = family;
        }
    }

    private static TxnClient client;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientTables.client();
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @ParameterizedTest
    @EnumSource(FamilyShape.class)
    void aTentativeVersionNeverHidesNorDropsTheCommittedOne(FamilyShape shape) throws Exception {
        TableName name = ClientTables.createTable("RETAIN_" + shape.name(), shape.family);
        try (TransactionalTable table = client.table(name)) {
            commitValue(client, table, "r", "v0");
            Transaction writer = client.begin();
            write(table, writer, "r", "v1");

            Transaction before = client.begin();
            assertEquals("v0", read(table, before, "r"), "a pending tentative version hid the committed one");

            flush(name);
            assertEquals("v0", read(table, before, "r"), "the flush dropped the committed version");
            assertEquals("v0", read(table, client.begin(), "r"), "after the flush, for a new reader");

            majorCompact(name);
            assertEquals("v0", read(table, before, "r"), "the major compaction dropped the committed version");
            assertEquals("v0", read(table, client.begin(), "r"), "after the compaction, for a new reader");

            client.commit(writer);
            assertEquals("v1", read(table, client.begin(), "r"), "the writer's commit is visible after it");
            assertEquals("v0", read(table, before, "r"), "an older snapshot still reads v0");

            flush(name);
            majorCompact(name);
            assertEquals("v1", read(table, client.begin(), "r"), "the commit survives flush and compaction");
            assertEquals("v0", read(table, before, "r"), "so does the version an older snapshot reads");
        }
    }

    private static void flush(TableName name) throws IOException {
        for (HRegion region : regions(name)) {
            region.flush(true);
        }
    }

    /** Synchronous major compaction of every store of the table (the Admin call only queues a request). */
    private static void majorCompact(TableName name) throws IOException {
        for (HRegion region : regions(name)) {
            region.compact(true);
            region.getStores().forEach(store -> assertFalse(store.getStorefilesCount() > 1,
                    "the major compaction ran: one store file left in " + store));
        }
    }

    private static List<HRegion> regions(TableName name) {
        List<HRegion> regions = SharedStack.get().hbase().getMiniHBaseCluster().getRegions(name);
        assertFalse(regions.isEmpty(), "regions of " + name);
        return regions;
    }
}
