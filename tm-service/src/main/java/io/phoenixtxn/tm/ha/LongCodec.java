package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;

import java.nio.ByteBuffer;

/** The 8-byte big-endian encoding of the timestamp and fence znodes. */
final class LongCodec {
    private LongCodec() {
    }

    static byte[] encode(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    static long decode(byte[] data, String path) throws TmException {
        if (data == null || data.length != Long.BYTES) {
            throw new TmException("ZooKeeper node " + path + " holds " + (data == null ? "no data" : data.length
                    + " bytes") + " instead of an 8-byte timestamp; it was not written by phoenix-txn. Point "
                    + HaConfig.ZK_PATH + " at a path of its own");
        }
        return ByteBuffer.wrap(data).getLong();
    }
}
