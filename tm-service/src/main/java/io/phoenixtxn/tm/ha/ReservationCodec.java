package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of the max-timestamp znode: the reservation as 8 bytes big-endian, then format byte 1 and the token
 * (UTF-8) of the compare-and-set that wrote it, by which a TM recognises its own write after an unclear answer.
 * Versions before the token wrote the 8 bytes alone; they still decode, with an empty writer (no one's token).
 */
final class ReservationCodec {
    private static final byte WITH_WRITER = 1;

    /** The reservation and the token of its writer ("" when written without one). */
    record Reservation(long max, String writer) {
    }

    private ReservationCodec() {
    }

    static byte[] encode(long max, String writer) {
        byte[] token = writer.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(Long.BYTES + 1 + token.length).putLong(max).put(WITH_WRITER).put(token).array();
    }

    static Reservation decode(byte[] data, String path) throws TmException {
        if (data != null && data.length == Long.BYTES) {
            return new Reservation(ByteBuffer.wrap(data).getLong(), "");
        }
        if (data == null || data.length < Long.BYTES + 1 || data[Long.BYTES] != WITH_WRITER) {
            throw new TmException("ZooKeeper node " + path + " holds " + (data == null ? "no data" : data.length
                    + " bytes") + " that are not a timestamp reservation; it was not written by phoenix-txn (or by"
                    + " a newer version of it). Point " + HaConfig.ZK_PATH + " at a path of its own");
        }
        String writer = new String(data, Long.BYTES + 1, data.length - Long.BYTES - 1, StandardCharsets.UTF_8);
        return new Reservation(ByteBuffer.wrap(data).getLong(), writer);
    }
}
