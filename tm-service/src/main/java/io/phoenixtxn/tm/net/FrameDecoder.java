package io.phoenixtxn.tm.net;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.nio.ByteOrder;

/**
 * Splits the byte stream into frame bodies (length field stripped). Fails fast: an oversize length raises
 * {@code TooLongFrameException} as soon as the length is read, a negative one {@code CorruptedFrameException};
 * the protocol handler then closes the connection.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {

    FrameDecoder(int maxFrameBytes) {
        // Netty's limit counts the length field too.
        super(maxFrameBytes + Protocol.LENGTH_FIELD_BYTES, 0, Protocol.LENGTH_FIELD_BYTES, 0,
                Protocol.LENGTH_FIELD_BYTES);
    }

    /** Signed, unlike Netty's default: a negative length is a corrupt stream, not a 4 GiB frame. */
    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        return buf.getInt(offset);
    }
}
