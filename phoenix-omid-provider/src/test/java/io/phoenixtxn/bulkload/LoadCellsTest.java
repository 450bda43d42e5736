package io.phoenixtxn.bulkload;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.mapreduce.ImportPreUpsertKeyValueProcessor;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a transactional bulk load writes for each cell Phoenix's mapper and reducer produce. */
class LoadCellsTest {
    private static final byte[] ROW = Bytes.toBytes("r");
    private static final byte[] FAMILY = Bytes.toBytes("0");
    private static final byte[] QUALIFIER = Bytes.toBytes("W");
    private static final long VERSION = 1_795_853_062_726_000_000L;

    @Test
    void aPutKeepsItsValueAtTheLoadsVersion() throws IOException {
        Cell out = LoadCells.atVersion(new KeyValue(ROW, FAMILY, QUALIFIER, 1234L, Bytes.toBytes("v")), VERSION);
        assertEquals(VERSION, out.getTimestamp());
        assertEquals(Cell.Type.Put, out.getType());
        assertArrayEquals(Bytes.toBytes("v"), CellUtil.cloneValue(out));
        assertArrayEquals(QUALIFIER, CellUtil.cloneQualifier(out));
    }

    @Test
    void aColumnDeleteBecomesATombstoneNotAnHBaseDeleteMarker() throws IOException {
        Cell out = LoadCells.atVersion(new KeyValue(ROW, FAMILY, QUALIFIER, 1234L, KeyValue.Type.DeleteColumn),
                VERSION);
        assertEquals(Cell.Type.Put, out.getType(), "a delete marker would hide committed versions at once");
        assertEquals(0, out.getValueLength());
        assertEquals(VERSION, out.getTimestamp());
    }

    @Test
    void aFamilyDeleteIsRefusedNamingTheRow() {
        IOException refused = assertThrows(IOException.class, () -> LoadCells.atVersion(
                new KeyValue(ROW, FAMILY, null, 1234L, KeyValue.Type.DeleteFamily), VERSION));
        assertTrue(refused.getMessage().contains("DeleteFamily") && refused.getMessage().contains("row r"),
                refused.getMessage());
    }

    @Test
    void anEmptyPutTravelsAsAColumnDeleteThenTheUsersProcessorRuns() {
        Configuration conf = new Configuration(false);
        conf.set(NullColumnProcessor.USER_PROCESSOR, DropsQualifierX.class.getName());
        NullColumnProcessor processor = new NullColumnProcessor();
        processor.setConf(conf);
        List<Cell> in = List.of(new KeyValue(ROW, FAMILY, QUALIFIER, 7L, new byte[0]),
                new KeyValue(ROW, FAMILY, Bytes.toBytes("V"), 7L, Bytes.toBytes("x")),
                new KeyValue(ROW, FAMILY, Bytes.toBytes("X"), 7L, Bytes.toBytes("gone")));
        List<Cell> out = processor.preUpsert(Bytes.toBytes("T"), in);
        assertEquals(2, out.size(), "the user's processor ran on the result: " + out);
        assertEquals(Cell.Type.DeleteColumn, out.get(0).getType(), "a null column (empty value)");
        assertEquals(7L, out.get(0).getTimestamp());
        assertEquals(Cell.Type.Put, out.get(1).getType(), "a one-byte value stays a value");
    }

    /** A user's processor: drops qualifier X. */
    public static final class DropsQualifierX implements ImportPreUpsertKeyValueProcessor {
        @Override
        public List<Cell> preUpsert(byte[] tableName, List<Cell> keyValues) {
            List<Cell> kept = new ArrayList<>();
            for (Cell cell : keyValues) {
                if (!Bytes.equals(CellUtil.cloneQualifier(cell), Bytes.toBytes("X"))) {
                    kept.add(cell);
                }
            }
            return kept;
        }
    }
}
