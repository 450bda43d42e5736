package io.phoenixtxn.client;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Byte-level compatibility with Apache Omid 1.1's layout, pinned to literal bytes. */
class OnDiskLayoutTest {

    @Test
    void commitQualifierIsOmidsShadowCellQualifier() {
        byte[] q = OnDiskLayout.commitQualifier(Bytes.toBytes("v"));
        assertArrayEquals(new byte[] {0x00, (byte) 0xC2, (byte) 0x80, 'v', (byte) 0xC2, (byte) 0x80}, q);
        assertTrue(OnDiskLayout.isCommitQualifier(q, 0, q.length));
        assertArrayEquals(Bytes.toBytes("v"), OnDiskLayout.dataQualifierOf(q, 0, q.length));
        byte[] legacy = {'v', (byte) 0xC2, (byte) 0x80};
        assertTrue(OnDiskLayout.isCommitQualifier(legacy, 0, legacy.length), "suffix-only legacy form");
        assertArrayEquals(Bytes.toBytes("v"), OnDiskLayout.dataQualifierOf(legacy, 0, legacy.length));
        assertFalse(OnDiskLayout.isCommitQualifier(Bytes.toBytes("v"), 0, 1));
    }

    @Test
    void familyDeleteCommitQualifierIsPrefixPlusSuffix() {
        byte[] q = OnDiskLayout.commitQualifier(OnDiskLayout.FAMILY_DELETE_QUALIFIER);
        assertArrayEquals(new byte[] {0x00, (byte) 0xC2, (byte) 0x80, (byte) 0xC2, (byte) 0x80}, q);
        assertEquals(0, OnDiskLayout.dataQualifierOf(q, 0, q.length).length);
    }

    @Test
    void commitTableRowKeyAndValueMatchOmid() throws IOException {
        long txId = 0x0102030405060708L;
        assertArrayEquals(new byte[] {0x08, 1, 2, 3, 4, 5, 6, 7, 8}, HBaseCommitTable.rowKey(txId));
        assertEquals(txId, HBaseCommitTable.txIdOfRowKey(HBaseCommitTable.rowKey(txId)));
        // protobuf varint of the delta: 300 = 0xAC 0x02
        assertArrayEquals(new byte[] {(byte) 0xAC, 0x02}, HBaseCommitTable.encodeCommitTimestamp(1000, 1300));
        assertEquals(1300, HBaseCommitTable.decodeCommitTimestamp(1000, new byte[] {(byte) 0xAC, 0x02}));
        assertThrows(IllegalArgumentException.class, () -> HBaseCommitTable.encodeCommitTimestamp(10, 10));
        assertArrayEquals(new byte[] {0, 0, 0, 1}, HBaseCommitTable.INVALID_VALUE);
    }

    @Test
    void deletesBecomeTombstonesAndFamilyMarkers() {
        byte[] f = Bytes.toBytes("f");
        Put column = TentativeWrites.fromDelete(new Delete(Bytes.toBytes("r")).addColumns(f, Bytes.toBytes("q")), 50,
                List.of(f));
        Cell c = column.get(f, Bytes.toBytes("q")).get(0);
        assertEquals(0, c.getValueLength());
        assertEquals(50, c.getTimestamp());
        Put row = TentativeWrites.fromDelete(new Delete(Bytes.toBytes("r")), 50, List.of(f, Bytes.toBytes("g")));
        assertEquals(2, row.size(), "one family-delete marker per family of the table");
        Cell marker = row.get(f, OnDiskLayout.FAMILY_DELETE_QUALIFIER).get(0);
        assertTrue(OnDiskLayout.isFamilyDeleteMarker(marker));
    }

    @Test
    void putsAreRestampedAtTheWritePointerAndReservedQualifiersRefused() {
        byte[] f = Bytes.toBytes("f");
        Put put = new Put(Bytes.toBytes("r")).addColumn(f, Bytes.toBytes("q"), 7L, Bytes.toBytes("v"));
        assertEquals(100, TentativeWrites.fromPut(put, 100).get(f, Bytes.toBytes("q")).get(0).getTimestamp());
        Put bad = new Put(Bytes.toBytes("r")).addColumn(f, new byte[] {'q', (byte) 0xC2, (byte) 0x80}, Bytes.toBytes(1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TentativeWrites.fromPut(bad, 1));
        assertTrue(e.getMessage().contains("C2 80"));
    }

    @Test
    void markCommittedWritesDataAndCommitCellsAtOnce() {
        byte[] f = Bytes.toBytes("f");
        Put committed = TransactionalTable.markCommitted(new Put(Bytes.toBytes("r")).addColumn(f, Bytes.toBytes("q"),
                Bytes.toBytes("v")), 950, 950);
        Cell commit = committed.get(f, OnDiskLayout.commitQualifier(Bytes.toBytes("q"))).get(0);
        assertEquals(950, commit.getTimestamp());
        assertEquals(950, OnDiskLayout.commitTimestampOf(commit));
    }
}
