package io.phoenixtxn.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SnapshotCodecTest {
    private static final long TX = SnapshotTest.TX;

    @Test
    void roundTripsEverySnapshotShape() {
        long[] ids = {0, TX, TimestampLayout.firstSlotOfMillis(4_102_444_800_000L) + 1051 * TimestampLayout.SLOT_WIDTH};
        for (long id : ids) {
            Snapshot s = Snapshot.begin(id);
            for (int cp = 0; cp <= TimestampLayout.MAX_CHECKPOINTS; cp++) {
                for (VisibilityLevel level : VisibilityLevel.values()) {
                    Snapshot v = s.withLevel(level);
                    byte[] bytes = SnapshotCodec.encode(v);
                    assertEquals(SnapshotCodec.ENCODED_LENGTH, bytes.length);
                    assertEquals(SnapshotCodec.FORMAT_V1, bytes[0]);
                    assertEquals(v, SnapshotCodec.decode(bytes));
                }
                assertEquals(s, SnapshotCodec.decode(SnapshotCodec.encode(s)));
                if (cp < TimestampLayout.MAX_CHECKPOINTS) {
                    s = s.checkpoint();
                }
            }
        }
    }

    @Test
    void layoutIsTheDocumentedOne() {
        Snapshot s = Snapshot.of(TX, TX + 1, TX + 2, VisibilityLevel.SNAPSHOT_ALL);
        ByteBuffer b = ByteBuffer.wrap(SnapshotCodec.encode(s));
        assertEquals(1, b.get());
        assertEquals(TX, b.getLong());
        assertEquals(TX + 1, b.getLong());
        assertEquals(TX + 2, b.getLong());
        assertEquals(VisibilityLevel.SNAPSHOT_ALL.ordinal(), b.get());
        assertEquals(0, b.remaining());
    }

    @Test
    void trailingProviderByteIsIgnored() {
        Snapshot s = Snapshot.begin(TX).checkpoint();
        byte[] bytes = SnapshotCodec.encode(s);
        byte[] withProvider = Arrays.copyOf(bytes, bytes.length + 1);
        withProvider[bytes.length] = 2; // a provider code appended by Phoenix
        assertEquals(s, SnapshotCodec.decode(withProvider));
        byte[] withMore = Arrays.copyOf(bytes, bytes.length + 17);
        Arrays.fill(withMore, bytes.length, withMore.length, (byte) 0x7f);
        assertEquals(s, SnapshotCodec.decode(withMore));
    }

    @Test
    void rejectsNullAndShortInputWithAClearMessage() {
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class, () -> SnapshotCodec.decode(null));
        assertTrue(nul.getMessage().contains("Not a phoenix-txn snapshot (null)"), nul.getMessage());
        byte[] good = SnapshotCodec.encode(Snapshot.begin(TX));
        for (int len = 0; len < SnapshotCodec.ENCODED_LENGTH; len++) {
            byte[] shorter = Arrays.copyOf(good, len);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SnapshotCodec.decode(shorter));
            assertTrue(e.getMessage().contains("Not a phoenix-txn snapshot (" + len + " bytes)"), e.getMessage());
            assertTrue(e.getMessage().contains("different transaction provider"), e.getMessage());
        }
    }

    @Test
    void rejectsForeignTransactionStates() {
        // Apache Omid's TSOProto.Transaction (protobuf, field 1 varint: tag 0x08) and Tephra's Thrift compact
        // encoding (field 1 i64: 0x16) start differently from our format byte.
        byte[] omid = new byte[40];
        omid[0] = 0x08;
        byte[] tephra = new byte[64];
        tephra[0] = 0x16;
        byte[] futureFormat = SnapshotCodec.encode(Snapshot.begin(TX));
        futureFormat[0] = 2;
        for (byte[] foreign : new byte[][] {omid, tephra, futureFormat}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SnapshotCodec.decode(foreign));
            assertTrue(e.getMessage().startsWith("Not a phoenix-txn snapshot (" + foreign.length + " bytes)"),
                    e.getMessage());
        }
    }

    @Test
    void rejectsGarbage() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] garbage = new byte[SnapshotCodec.ENCODED_LENGTH + random.nextInt(3)];
            random.nextBytes(garbage);
            if (i % 2 == 0) {
                garbage[0] = SnapshotCodec.FORMAT_V1; // right format byte, nonsense contents
            } else if (garbage[0] == SnapshotCodec.FORMAT_V1) {
                garbage[0] = 0;
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SnapshotCodec.decode(garbage), () -> "accepted " + Arrays.toString(garbage));
            assertNotNull(e.getMessage());
        }
    }

    @Test
    void rejectsAValidHeaderWithBadParts() {
        Snapshot s = Snapshot.begin(TX);
        byte[] badLevel = SnapshotCodec.encode(s);
        badLevel[SnapshotCodec.ENCODED_LENGTH - 1] = 9;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SnapshotCodec.decode(badLevel));
        assertTrue(e.getMessage().contains("visibility level"), e.getMessage());

        byte[] badWrite = ByteBuffer.allocate(SnapshotCodec.ENCODED_LENGTH).put(SnapshotCodec.FORMAT_V1).putLong(TX)
                .putLong(TX).putLong(TX + 50).put((byte) 0).array();
        IllegalArgumentException w = assertThrows(IllegalArgumentException.class,
                () -> SnapshotCodec.decode(badWrite));
        assertTrue(w.getMessage().contains("Write pointer"), w.getMessage());

        byte[] badId = ByteBuffer.allocate(SnapshotCodec.ENCODED_LENGTH).put(SnapshotCodec.FORMAT_V1).putLong(TX + 3)
                .putLong(TX + 3).putLong(TX + 3).put((byte) 0).array();
        assertThrows(IllegalArgumentException.class, () -> SnapshotCodec.decode(badId));
    }

    @Test
    void encodingIsDeterministic() {
        Snapshot s = Snapshot.begin(TX).checkpoint();
        assertArrayEquals(SnapshotCodec.encode(s), SnapshotCodec.encode(Snapshot.of(TX, TX, TX + 1,
                VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT)));
    }
}
