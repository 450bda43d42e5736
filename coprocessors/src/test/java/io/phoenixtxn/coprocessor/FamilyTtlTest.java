package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where a family's TTL comes from (Phoenix's transactional attribute first, then HBase's family TTL) and the bound it
 * gives: commit timestamps whose millisecond part is more than the TTL before the point in time have expired.
 */
class FamilyTtlTest {
    private static final long AT = TimestampLayout.firstSlotOfMillis(1_800_000_000_000L) + 12_345;

    private static ColumnFamilyDescriptorBuilder family() {
        return ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("0"));
    }

    @Test
    void noTtlExpiresNothing() {
        assertEquals(Long.MIN_VALUE, FamilyTtl.expiredBelow(family().build(), AT));
        assertEquals(Long.MIN_VALUE, FamilyTtl.expiredBelow(null, AT));
        assertEquals(Long.MIN_VALUE, FamilyTtl.expiredBelow(
                family().setValue(FamilyTtl.PHOENIX_TRANSACTIONAL_TTL, String.valueOf(HConstants.FOREVER)).build(), AT));
    }

    @Test
    void phoenixsTransactionalTtlAttributeIsSecondsBeforeThePoint() {
        ColumnFamilyDescriptor f = family().setValue(FamilyTtl.PHOENIX_TRANSACTIONAL_TTL, "86400").build();
        assertEquals(TimestampLayout.firstSlotOfMillis(1_800_000_000_000L - 86_400_000L), FamilyTtl.expiredBelow(f, AT));
    }

    @Test
    void phoenixsAttributeWinsOverTheHbaseFamilyTtl() {
        ColumnFamilyDescriptor f = family().setTimeToLive(10)
                .setValue(FamilyTtl.PHOENIX_TRANSACTIONAL_TTL, "100").build();
        assertEquals(TimestampLayout.firstSlotOfMillis(1_800_000_000_000L - 100_000L), FamilyTtl.expiredBelow(f, AT));
    }

    @Test
    void theHbaseFamilyTtlAppliesWithoutPhoenixsAttribute() {
        ColumnFamilyDescriptor f = family().setTimeToLive(10).build();
        assertEquals(TimestampLayout.firstSlotOfMillis(1_800_000_000_000L - 10_000L), FamilyTtl.expiredBelow(f, AT));
    }

    @Test
    void aMalformedOrHugeAttributeExpiresNothing() {
        assertEquals(Long.MIN_VALUE, FamilyTtl.expiredBelow(
                family().setValue(FamilyTtl.PHOENIX_TRANSACTIONAL_TTL, "one day").build(), AT));
        assertEquals(Long.MIN_VALUE, FamilyTtl.expiredBelow(
                family().setValue(FamilyTtl.PHOENIX_TRANSACTIONAL_TTL, String.valueOf(Long.MAX_VALUE / 10)).build(), AT));
    }
}
