package io.phoenixtxn.snapshot;

import java.nio.ByteBuffer;

/**
 * Wire form of a {@link Snapshot}, carried as a scan/get attribute to the region observer and inside Phoenix's
 * {@code _TxState}. Layout: format byte (1), txId, readPointer, writePointer (8 bytes each), level ordinal (1).
 */
public final class SnapshotCodec {
    public static final byte FORMAT_V1 = 1;
    public static final int ENCODED_LENGTH = 1 + 8 + 8 + 8 + 1;

    private SnapshotCodec() {
    }

    public static byte[] encode(Snapshot s) {
        return ByteBuffer.allocate(ENCODED_LENGTH).put(FORMAT_V1).putLong(s.txId()).putLong(s.readPointer())
                .putLong(s.writePointer()).put((byte) s.level().ordinal()).array();
    }

    /** Decodes the first {@link #ENCODED_LENGTH} bytes; trailing bytes (a provider code) are ignored. */
    public static Snapshot decode(byte[] bytes) {
        if (bytes == null || bytes.length < ENCODED_LENGTH || bytes[0] != FORMAT_V1) {
            throw new IllegalArgumentException("Not a phoenix-txn snapshot (" + (bytes == null ? "null" : bytes.length
                    + " bytes") + "); was it written by a different transaction provider or client version?");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        b.get();
        long txId = b.getLong();
        long read = b.getLong();
        long write = b.getLong();
        return Snapshot.of(txId, read, write, VisibilityLevel.fromOrdinal(b.get()));
    }
}
