package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link WrittenCellsCodec}: the recovery record a cleaner finishes a crashed client's post-commit from. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WrittenCellsCodecTest {
    private static final long TX = TimestampLayout.firstSlotOfMillis(1_717_200_000_000L);

    @Test
    void roundTripKeepsTablesCellsBytesAndCheckpointVersions() throws IOException {
        Map<TableName, List<WrittenCell>> cells = new LinkedHashMap<>();
        cells.put(TableName.valueOf("ns:T1"), List.of(
                new WrittenCell(new byte[] {0, (byte) 0xFF, 7}, Bytes.toBytes("0"), Bytes.toBytes("V"), TX),
                new WrittenCell(Bytes.toBytes("row"), Bytes.toBytes("0"), new byte[0], TX + 49)));
        cells.put(TableName.valueOf("T2"), List.of(
                new WrittenCell(Bytes.toBytes("k"), Bytes.toBytes("f"), Bytes.toBytes("q"), TX + 3)));
        Map<TableName, List<WrittenCell>> decoded = WrittenCellsCodec.decode(TX,
                WrittenCellsCodec.encode(TX, cells));
        assertEquals(new ArrayList<>(cells.keySet()), new ArrayList<>(decoded.keySet()));
        for (TableName table : cells.keySet()) {
            List<WrittenCell> expected = cells.get(table);
            List<WrittenCell> actual = decoded.get(table);
            assertEquals(expected.size(), actual.size());
            for (int i = 0; i < expected.size(); i++) {
                assertArrayEquals(expected.get(i).row(), actual.get(i).row());
                assertArrayEquals(expected.get(i).family(), actual.get(i).family());
                assertArrayEquals(expected.get(i).qualifier(), actual.get(i).qualifier());
                assertEquals(expected.get(i).version(), actual.get(i).version());
            }
        }
    }

    @Test
    void anEmptyWriteSetEncodesToAnEmptyRecord() throws IOException {
        assertTrue(WrittenCellsCodec.decode(TX, WrittenCellsCodec.encode(TX, Map.of())).isEmpty());
    }

    @Test
    void aRecordOverTheLimitIsNotWritten() {
        byte[] row = new byte[64 * 1024];
        List<WrittenCell> many = new ArrayList<>();
        for (int i = 0; i < WrittenCellsCodec.MAX_RECORD_BYTES / row.length + 1; i++) {
            many.add(new WrittenCell(row, Bytes.toBytes("f"), Bytes.toBytes("q"), TX));
        }
        assertNull(WrittenCellsCodec.encode(TX, Map.of(TableName.valueOf("T"), many)),
                "readers heal such a transaction cell by cell instead");
    }

    @Test
    void foreignOrDamagedBytesAreRefusedWithTheTransactionNamed() {
        byte[] good = WrittenCellsCodec.encode(TX, Map.of(TableName.valueOf("T"),
                List.of(new WrittenCell(Bytes.toBytes("r"), Bytes.toBytes("f"), Bytes.toBytes("q"), TX))));
        byte[] otherFormat = good.clone();
        otherFormat[0] = 2;
        IOException unknown = assertThrows(IOException.class, () -> WrittenCellsCodec.decode(TX, otherFormat));
        assertTrue(unknown.getMessage().contains(Long.toString(TX)), unknown.getMessage());

        byte[] hugeField = good.clone();
        // format(1) + table count(4), then the table name's length: claim more than a record may hold
        Bytes.putInt(hugeField, 5, WrittenCellsCodec.MAX_RECORD_BYTES + 1);
        IOException corrupt = assertThrows(IOException.class, () -> WrittenCellsCodec.decode(TX, hugeField));
        assertTrue(corrupt.getMessage().contains("Corrupt recovery record"), corrupt.getMessage());

        assertThrows(IOException.class, () -> WrittenCellsCodec.decode(TX, Arrays.copyOf(good, good.length - 1)),
                "a truncated record");
    }
}
