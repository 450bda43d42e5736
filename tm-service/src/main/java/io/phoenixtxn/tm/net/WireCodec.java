package io.phoenixtxn.tm.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.PendingStatus;

import java.nio.charset.StandardCharsets;

/**
 * Bytes to {@link Message} and back (layout in {@link Protocol}). Decoding checks every count against the bytes
 * actually in the frame before allocating anything, so a lying peer cannot make the receiver allocate more than
 * the frame it already holds.
 */
final class WireCodec {
    private WireCodec() {
    }

    /** Body bytes of a COMMIT frame (without the length field); long because counts come from callers. */
    static long commitBodyBytes(int rows, int tables) {
        return Protocol.HEADER_BYTES + 8L + 8L + 4L + 8L * rows + 4L + 8L * tables;
    }

    /** The whole frame, length field included, in one exactly sized buffer. */
    static ByteBuf encode(Message message, ByteBufAllocator alloc) {
        ByteBuf out = alloc.ioBuffer(frameBytes(message));
        write(message, out);
        return out;
    }

    /** Bytes of {@code message}'s whole frame, length field included. */
    static int frameBytes(Message message) {
        String errorText = message instanceof Message.ErrorReply e ? errorText(e.message()) : null;
        return Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + payloadBytes(message, errorText);
    }

    /** Appends {@code message}'s whole frame to {@code out}: many frames share one buffer and one flush. */
    static void write(Message message, ByteBuf out) {
        String errorText = message instanceof Message.ErrorReply e ? errorText(e.message()) : null;
        out.writeInt(Protocol.HEADER_BYTES + payloadBytes(message, errorText));
        out.writeByte(message.type().code());
        out.writeLong(message.requestId());
        writePayload(message, errorText, out);
    }

    private static int payloadBytes(Message message, String errorText) {
        switch (message.type()) {
            case HELLO:
            case HELLO_OK:
            case FENCE:
            case TIMESTAMP:
            case COMMITTED:
                return 8;
            case COMMIT: {
                Message.Commit c = (Message.Commit) message;
                return Math.toIntExact(commitBodyBytes(c.rowHashes().length, c.tableIds().length)
                        - Protocol.HEADER_BYTES);
            }
            case PENDING_STATUS:
            case HORIZON_IS:
                return 8 + 8;
            case FINISHED:
                return 4 + 8 * ((Message.Finished) message).txIds().length;
            case KEEP_ALIVE:
                return 4 + 8 * ((Message.KeepAlive) message).txIds().length;
            case BULK_LOAD:
                return 4 + 8 * ((Message.BulkLoad) message).tableIds().length;
            case TXIDS:
                return 4 + 8 * ((Message.TxIds) message).txIds().length;
            case ABORTED:
                return 1;
            case STATUS:
                return 1 + 8;
            case ERROR:
                return ByteBufUtil.utf8Bytes(errorText);
            case REPORT:
                return ByteBufUtil.utf8Bytes(((Message.Report) message).text());
            default:
                return 0;
        }
    }

    private static void writePayload(Message message, String errorText, ByteBuf out) {
        if (message instanceof Message.Hello h) {
            out.writeInt(h.magic()).writeInt(h.version());
        } else if (message instanceof Message.Commit c) {
            out.writeLong(c.txId());
            out.writeLong(c.conflictsSince());
            writeLongs(c.rowHashes(), out);
            writeLongs(c.tableIds(), out);
        } else if (message instanceof Message.Fence f) {
            out.writeLong(f.tableId());
        } else if (message instanceof Message.GetPendingStatus p) {
            out.writeLong(p.writerTxId()).writeLong(p.readerTxId());
        } else if (message instanceof Message.HelloOk ok) {
            out.writeInt(ok.version()).writeInt(ok.idleTimeoutSeconds());
        } else if (message instanceof Message.Timestamp t) {
            out.writeLong(t.timestamp());
        } else if (message instanceof Message.Committed c) {
            out.writeLong(c.commitTimestamp());
        } else if (message instanceof Message.Aborted a) {
            out.writeByte(a.reason().wireCode());
        } else if (message instanceof Message.Status st) {
            out.writeByte(st.kind().wireCode()).writeLong(st.commitTs());
        } else if (message instanceof Message.ErrorReply) {
            out.writeCharSequence(errorText, StandardCharsets.UTF_8);
        } else if (message instanceof Message.Report r) {
            out.writeCharSequence(r.text(), StandardCharsets.UTF_8);
        } else if (message instanceof Message.Finished f) {
            writeLongs(f.txIds(), out);
        } else if (message instanceof Message.KeepAlive k) {
            writeLongs(k.txIds(), out);
        } else if (message instanceof Message.BulkLoad b) {
            writeLongs(b.tableIds(), out);
        } else if (message instanceof Message.TxIds t) {
            writeLongs(t.txIds(), out);
        } else if (message instanceof Message.HorizonIs h) {
            out.writeLong(h.gc()).writeLong(h.commitPointSafe());
        }
    }

    private static void writeLongs(long[] values, ByteBuf out) {
        out.writeInt(values.length);
        for (long value : values) {
            out.writeLong(value);
        }
    }

    private static String errorText(String message) {
        String text = message == null ? "(no message)" : message;
        return text.length() <= Protocol.MAX_ERROR_CHARS ? text
                : text.substring(0, Protocol.MAX_ERROR_CHARS - 3) + "...";
    }

    /** Decodes one frame body (length field already stripped). */
    static Message decode(ByteBuf body) throws MalformedFrameException {
        int length = body.readableBytes();
        if (length < Protocol.HEADER_BYTES) {
            throw MalformedFrameException.withoutRequestId("frame of " + length + " bytes is shorter than the "
                    + Protocol.HEADER_BYTES + "-byte header (type + request id); the peer is not speaking the TM"
                    + " protocol or the stream is corrupt");
        }
        byte code = body.readByte();
        long id = body.readLong();
        MessageType type = MessageType.of(code);
        if (type == null) {
            throw MalformedFrameException.forRequest(id, String.format("unknown message type 0x%02x in request %d;"
                    + " this peer speaks TM protocol version %d, is the other side newer?", code & 0xFF, id,
                    Protocol.VERSION));
        }
        switch (type) {
            case HELLO:
                expectPayload(type, id, body, 8);
                return new Message.Hello(id, body.readInt(), body.readInt());
            case BEGIN:
                expectPayload(type, id, body, 0);
                return new Message.Begin(id);
            case COMMIT:
                return decodeCommit(id, body);
            case FENCE:
                expectPayload(type, id, body, 8);
                return new Message.Fence(id, body.readLong());
            case LOW_WATER_MARK:
                expectPayload(type, id, body, 0);
                return new Message.GetLowWaterMark(id);
            case PING:
                expectPayload(type, id, body, 0);
                return new Message.Ping(id);
            case PENDING_STATUS:
                expectPayload(type, id, body, 8 + 8);
                return new Message.GetPendingStatus(id, body.readLong(), body.readLong());
            case HELLO_OK:
                expectPayload(type, id, body, 8);
                return new Message.HelloOk(id, body.readInt(), body.readInt());
            case TIMESTAMP:
                expectPayload(type, id, body, 8);
                return new Message.Timestamp(id, body.readLong());
            case COMMITTED:
                expectPayload(type, id, body, 8);
                return new Message.Committed(id, body.readLong());
            case ABORTED:
                expectPayload(type, id, body, 1);
                return new Message.Aborted(id, abortReason(id, body.readUnsignedByte()));
            case ERROR:
                return new Message.ErrorReply(id, body.readCharSequence(body.readableBytes(),
                        StandardCharsets.UTF_8).toString());
            case PONG:
                expectPayload(type, id, body, 0);
                return new Message.Pong(id);
            case STATUS:
                expectPayload(type, id, body, 1 + 8);
                return new Message.Status(id, statusKind(id, body.readUnsignedByte()), body.readLong());
            case FINISHED:
                return new Message.Finished(id, onlyLongs(type, id, body));
            case KEEP_ALIVE:
                return new Message.KeepAlive(id, onlyLongs(type, id, body));
            case BULK_LOAD:
                return new Message.BulkLoad(id, onlyLongs(type, id, body));
            case HORIZON:
                expectPayload(type, id, body, 0);
                return new Message.GetHorizon(id);
            case NEW_TIMESTAMP:
                expectPayload(type, id, body, 0);
                return new Message.GetTimestamp(id);
            case STATUS_REPORT:
                expectPayload(type, id, body, 0);
                return new Message.GetStatusReport(id);
            case REPORT:
                return new Message.Report(id, body.readCharSequence(body.readableBytes(),
                        StandardCharsets.UTF_8).toString());
            case DONE:
                expectPayload(type, id, body, 0);
                return new Message.Done(id);
            case TXIDS:
                return new Message.TxIds(id, onlyLongs(type, id, body));
            case HORIZON_IS:
                expectPayload(type, id, body, 16);
                return new Message.HorizonIs(id, body.readLong(), body.readLong());
            default:
                throw new IllegalStateException("MessageType " + type + " has no decoder");
        }
    }

    private static Message.Commit decodeCommit(long id, ByteBuf body) throws MalformedFrameException {
        if (body.readableBytes() < 8 + 8 + 4) {
            throw malformed(MessageType.COMMIT, id, "payload of " + body.readableBytes()
                    + " bytes is too short for txId, conflicts-since and row count (truncated frame)");
        }
        long txId = body.readLong();
        long conflictsSince = body.readLong();
        long[] rows = readLongs(MessageType.COMMIT, id, body, "row", 4);
        long[] tables = readLongs(MessageType.COMMIT, id, body, "table", 0);
        if (body.isReadable()) {
            throw malformed(MessageType.COMMIT, id, body.readableBytes() + " bytes follow the " + tables.length
                    + " table ids; the counts do not match the frame length");
        }
        return new Message.Commit(id, txId, conflictsSince, rows, tables);
    }

    /** A payload that is exactly a count and that many longs (transaction ids). */
    private static long[] onlyLongs(MessageType type, long id, ByteBuf body) throws MalformedFrameException {
        long[] values = readLongs(type, id, body, "transaction id", 0);
        if (body.isReadable()) {
            throw malformed(type, id, body.readableBytes() + " bytes follow the " + values.length
                    + " transaction ids; the count does not match the frame length");
        }
        return values;
    }

    /** Reads a count and that many longs, requiring {@code bytesAfter} more bytes to follow them. */
    private static long[] readLongs(MessageType type, long id, ByteBuf body, String what, int bytesAfter)
            throws MalformedFrameException {
        if (body.readableBytes() < 4) {
            throw malformed(type, id, "frame ends before the " + what + " count (truncated frame)");
        }
        int count = body.readInt();
        if (count < 0) {
            throw malformed(type, id, "negative " + what + " count " + count);
        }
        long needed = 8L * count + bytesAfter;
        if (body.readableBytes() < needed) {
            throw malformed(type, id, "declares " + count + " " + what + "s (" + needed
                    + " more bytes) but only " + body.readableBytes() + " bytes remain; the counts do not match the"
                    + " frame length (truncated or corrupt frame)");
        }
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = body.readLong();
        }
        return values;
    }

    private static void expectPayload(MessageType type, long id, ByteBuf body, int bytes)
            throws MalformedFrameException {
        if (body.readableBytes() != bytes) {
            throw malformed(type, id, "payload is " + body.readableBytes() + " bytes, expected " + bytes
                    + (body.readableBytes() < bytes ? " (truncated frame)" : ""));
        }
    }

    private static AbortReason abortReason(long id, int code) throws MalformedFrameException {
        AbortReason reason = AbortReason.ofWireCode(code);
        if (reason == null) {
            throw malformed(MessageType.ABORTED, id, "abort reason #" + code + " is unknown to this client;"
                    + " upgrade the client to the server's version");
        }
        return reason;
    }

    private static PendingStatus.Kind statusKind(long id, int code) throws MalformedFrameException {
        PendingStatus.Kind kind = PendingStatus.Kind.ofWireCode(code);
        if (kind == null) {
            throw malformed(MessageType.STATUS, id, "pending status #" + code + " is unknown to this client;"
                    + " upgrade the client to the server's version");
        }
        return kind;
    }

    private static MalformedFrameException malformed(MessageType type, long id, String problem) {
        return MalformedFrameException.forRequest(id, "malformed " + type + " frame (request " + id + "): "
                + problem);
    }
}
