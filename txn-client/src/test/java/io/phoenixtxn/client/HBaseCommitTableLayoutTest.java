package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link HBaseCommitTable}'s bytes, Apache Omid 1.1's commit-table layout: row key = bucket byte ({@code txId &
 * 0x0F}) + 8-byte big-endian transaction id; commit value = protobuf varint of (commitTs - txId).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HBaseCommitTableLayoutTest {
    @Test
    void rowKeyIsTheBucketByteThenTheBigEndianTransactionId() {
        long txId = 0x0102030405060708L;
        assertArrayEquals(new byte[] {0x08, 1, 2, 3, 4, 5, 6, 7, 8}, HBaseCommitTable.rowKey(txId));
        assertEquals(txId, HBaseCommitTable.txIdOfRowKey(HBaseCommitTable.rowKey(txId)));
        long high = 0x7FFF_FFFF_FFFF_FFFFL;
        assertArrayEquals(new byte[] {0x0F, 0x7F, -1, -1, -1, -1, -1, -1, -1}, HBaseCommitTable.rowKey(high));
    }

    @Test
    void consecutiveTransactionsSpreadOverEightBuckets() {
        long tx = TimestampLayout.firstSlotOfMillis(1_717_200_000_000L);
        Set<Byte> buckets = new HashSet<>();
        for (int i = 0; i < 16; i++) {
            byte[] key = HBaseCommitTable.rowKey(tx);
            assertEquals(tx, HBaseCommitTable.txIdOfRowKey(key));
            assertEquals(tx & 0x0F, key[0]);
            buckets.add(key[0]);
            tx = TimestampLayout.nextSlotStart(tx);
        }
        assertEquals(Set.of((byte) 0, (byte) 2, (byte) 4, (byte) 6, (byte) 8, (byte) 10, (byte) 12, (byte) 14),
                buckets);
    }

    @Test
    void commitValueIsTheVarintOfTheDistanceFromTheStart() throws IOException {
        long txId = TimestampLayout.firstSlotOfMillis(1_717_200_000_000L);
        assertArrayEquals(new byte[] {0x01}, HBaseCommitTable.encodeCommitTimestamp(txId, txId + 1));
        assertArrayEquals(new byte[] {(byte) 0xAC, 0x02}, HBaseCommitTable.encodeCommitTimestamp(txId, txId + 300));
        for (long delta : new long[] {1, 127, 128, 950, 1_000_000L * 60_000, Long.MAX_VALUE - txId}) {
            assertEquals(txId + delta, HBaseCommitTable.decodeCommitTimestamp(txId,
                    HBaseCommitTable.encodeCommitTimestamp(txId, txId + delta)));
        }
    }

    @Test
    void aCommitTimestampNotAfterTheStartIsRefused() {
        long txId = TimestampLayout.firstSlotOfMillis(1_717_200_000_000L);
        assertThrows(IllegalArgumentException.class, () -> HBaseCommitTable.encodeCommitTimestamp(txId, txId));
        assertThrows(IllegalArgumentException.class, () -> HBaseCommitTable.encodeCommitTimestamp(txId, txId - 1));
    }
}
