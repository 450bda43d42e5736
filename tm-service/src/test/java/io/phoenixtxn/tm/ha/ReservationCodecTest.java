package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The timestamp znode's bytes: reservation + writer token, and the 8-byte form of earlier versions. */
class ReservationCodecTest {

    @Test
    void roundTripsTheReservationAndItsWriter() throws TmException {
        byte[] bytes = ReservationCodec.encode(0x0102030405060708L, "1234/abc#7");
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 1}, Arrays.copyOf(bytes, 9),
                "value first, big-endian, then format byte 1");
        assertEquals(new ReservationCodec.Reservation(0x0102030405060708L, "1234/abc#7"),
                ReservationCodec.decode(bytes, "/p/timestamp"));
    }

    @Test
    void theEightByteFormatOfEarlierVersionsHasNoWriter() throws TmException {
        byte[] legacy = ByteBuffer.allocate(Long.BYTES).putLong(42).array();
        assertEquals(new ReservationCodec.Reservation(42, ""), ReservationCodec.decode(legacy, "/p/timestamp"));
    }

    @Test
    void foreignBytesAreAClearError() {
        for (byte[] foreign : new byte[][] {null, new byte[0], "hello".getBytes(StandardCharsets.UTF_8),
                ByteBuffer.allocate(12).putLong(1).put((byte) 7).array()}) {
            TmException e = assertThrows(TmException.class, () -> ReservationCodec.decode(foreign, "/p/timestamp"));
            assertTrue(e.getMessage().contains("/p/timestamp") && e.getMessage().contains(HaConfig.ZK_PATH),
                    e.getMessage());
        }
    }
}
