package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The TTL bound GC passes to FamilyGc: commit times (milliseconds) more than the TTL older than the horizon's. */
class TransactionalGcTest {
    private static final Horizon HORIZON = new Horizon(TimestampLayout.firstSlotOfMillis(100_000) + 950 * 7, 0);

    @Test
    void theTtlBoundsCommitTimesByMillisecondsBeforeTheHorizon() {
        assertEquals(TimestampLayout.firstSlotOfMillis(100_000 - 30_000), TransactionalGc.expiredBelow(
                ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f")).setTimeToLive(30).build(), HORIZON));
    }

    @Test
    void noTtlOrOneReachingBeforeTheEpochExpiresNothing() {
        assertEquals(Long.MIN_VALUE, TransactionalGc.expiredBelow(
                ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f")).build(), HORIZON));
        assertEquals(Long.MIN_VALUE, TransactionalGc.expiredBelow(
                ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f")).setTimeToLive(1_000).build(), HORIZON));
    }
}
