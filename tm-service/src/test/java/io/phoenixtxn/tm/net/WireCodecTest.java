package io.phoenixtxn.tm.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.PendingStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class WireCodecTest {

    @Test
    void everyMessageSurvivesARoundTrip() throws Exception {
        List<Message> messages = List.of(
                new Message.Hello(1, Protocol.MAGIC, Protocol.VERSION),
                new Message.Begin(2),
                new Message.Fence(3, -42L),
                new Message.GetLowWaterMark(4),
                new Message.Ping(5),
                new Message.GetPendingStatus(14, 1234, 5678),
                new Message.HelloOk(6, Protocol.VERSION, 60),
                new Message.Timestamp(7, Long.MAX_VALUE),
                new Message.Committed(8, 123_456_789L),
                new Message.ErrorReply(9, "grüße: écrit ✓"),
                new Message.Pong(10),
                new Message.GetTimestamp(16));
        for (Message message : messages) {
            assertEquals(message, roundTrip(message));
        }
        for (AbortReason reason : AbortReason.values()) {
            if (reason.wireCode() != AbortReason.NOT_A_TM_ANSWER) {
                assertEquals(new Message.Aborted(11, reason), roundTrip(new Message.Aborted(11, reason)));
            }
        }
        for (PendingStatus.Kind kind : PendingStatus.Kind.values()) {
            assertEquals(new Message.Status(15, kind, 77), roundTrip(new Message.Status(15, kind, 77)));
        }
    }

    @Test
    void aBulkLoadCarriesItsTables() throws Exception {
        Message.BulkLoad decoded = (Message.BulkLoad) roundTrip(new Message.BulkLoad(17, new long[] {-1L, 42L}));
        assertEquals(17, decoded.requestId());
        org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {-1L, 42L}, decoded.tableIds());
    }

    /** The codes are the protocol: pinned here, so no reordering of the enums can change what travels. */
    @Test
    void abortReasonsAndStatusKindsTravelAsTheirFixedCodes() {
        Map<AbortReason, Integer> reasons = new LinkedHashMap<>();
        reasons.put(AbortReason.CONFLICT, 1);
        reasons.put(AbortReason.FENCE, 2);
        reasons.put(AbortReason.BELOW_LOW_WATER_MARK, 3);
        reasons.put(AbortReason.CONFLICT_HISTORY_FULL, 4);
        reasons.put(AbortReason.LEASE_LOST, 5);
        reasons.forEach((reason, code) -> assertEquals(code, firstPayloadByte(new Message.Aborted(1, reason)),
                reason.name()));
        Map<PendingStatus.Kind, Integer> kinds = Map.of(PendingStatus.Kind.NOT_DECIDED, 1,
                PendingStatus.Kind.DECIDED, 2, PendingStatus.Kind.UNKNOWN, 3);
        kinds.forEach((kind, code) -> assertEquals(code, firstPayloadByte(new Message.Status(1, kind, -1)),
                kind.name()));
    }

    @Test
    void clientSideAbortOutcomesAreNotTmAnswers() {
        for (AbortReason reason : List.of(AbortReason.INVALIDATED, AbortReason.CLIENT_ROLLBACK)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> WireCodec.encode(new Message.Aborted(1, reason), UnpooledByteBufAllocator.DEFAULT));
            assertTrue(e.getMessage().contains(reason.name()), e.getMessage());
        }
    }

    @Test
    void commitCarriesBothArrays() throws Exception {
        long[] rows = {1, -1, Long.MIN_VALUE, Long.MAX_VALUE};
        long[] tables = {7};
        Message.Commit decoded = (Message.Commit) roundTrip(new Message.Commit(12, 99, 50, rows, tables));
        assertEquals(12, decoded.requestId());
        assertEquals(99, decoded.txId());
        assertEquals(50, decoded.conflictsSince());
        assertArrayEquals(rows, decoded.rowHashes());
        assertArrayEquals(tables, decoded.tableIds());
        Message.Commit empty = (Message.Commit) roundTrip(new Message.Commit(13, 5, 5, new long[0], new long[0]));
        assertEquals(0, empty.rowHashes().length);
        assertEquals(0, empty.tableIds().length);
    }

    @Test
    void frameSizeMatchesCommitBodyBytes() {
        ByteBuf frame = WireCodec.encode(new Message.Commit(1, 2, 2, new long[5], new long[3]),
                UnpooledByteBufAllocator.DEFAULT);
        try {
            assertEquals(WireCodec.commitBodyBytes(5, 3), frame.getInt(0));
            assertEquals(Protocol.LENGTH_FIELD_BYTES + WireCodec.commitBodyBytes(5, 3), frame.readableBytes());
        } finally {
            frame.release();
        }
    }

    @Test
    void longErrorTextIsCut() throws Exception {
        String text = "x".repeat(Protocol.MAX_ERROR_CHARS * 2);
        Message.ErrorReply decoded = (Message.ErrorReply) roundTrip(new Message.ErrorReply(1, text));
        assertEquals(Protocol.MAX_ERROR_CHARS, decoded.message().length());
        assertTrue(decoded.message().endsWith("..."));
    }

    @Test
    void shortFrameHasNoRequestId() {
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> WireCodec.decode(Unpooled.wrappedBuffer(new byte[] {0x02, 0, 0, 0})));
        assertFalse(e.hasRequestId());
        assertTrue(e.getMessage().contains("shorter than the 9-byte header"), e.getMessage());
    }

    @Test
    void unknownTypeNamesTheByte() {
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> WireCodec.decode(body(0x7F, 77)));
        assertTrue(e.hasRequestId());
        assertEquals(77, e.requestId());
        assertTrue(e.getMessage().contains("unknown message type 0x7f"), e.getMessage());
    }

    @Test
    void payloadOfTheWrongSizeIsRejected() {
        ByteBuf truncatedFence = body(MessageType.FENCE.code(), 5).writeInt(1);
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> WireCodec.decode(truncatedFence));
        assertEquals(5, e.requestId());
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        ByteBuf beginWithPayload = body(MessageType.BEGIN.code(), 6).writeByte(1);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(beginWithPayload));
    }

    @Test
    void commitCountsMustMatchTheFrame() {
        ByteBuf tooManyRows = body(MessageType.COMMIT.code(), 8).writeLong(1).writeLong(1).writeInt(1000).writeLong(1)
                .writeLong(2);
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> WireCodec.decode(tooManyRows));
        assertEquals(8, e.requestId());
        assertTrue(e.getMessage().contains("declares 1000 rows"), e.getMessage());

        ByteBuf negative = body(MessageType.COMMIT.code(), 9).writeLong(1).writeLong(1).writeInt(-1);
        assertTrue(assertThrows(MalformedFrameException.class, () -> WireCodec.decode(negative)).getMessage()
                .contains("negative row count"));

        ByteBuf trailing = body(MessageType.COMMIT.code(), 10).writeLong(1).writeLong(1).writeInt(0).writeInt(1).writeLong(3)
                .writeByte(0);
        assertTrue(assertThrows(MalformedFrameException.class, () -> WireCodec.decode(trailing)).getMessage()
                .contains("do not match the frame length"));

        ByteBuf noTableCount = body(MessageType.COMMIT.code(), 11).writeLong(1).writeLong(1).writeInt(1).writeLong(3);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(noTableCount));
    }

    @Test
    void unknownPendingStatusKindIsRejected() {
        ByteBuf status = body(MessageType.STATUS.code(), 4).writeByte(99).writeLong(1);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> WireCodec.decode(status));
        assertTrue(e.getMessage().contains("pending status #99"), e.getMessage());
    }

    @Test
    void unknownAbortReasonIsRejected() {
        ByteBuf aborted = body(MessageType.ABORTED.code(), 3).writeByte(200);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> WireCodec.decode(aborted));
        assertTrue(e.getMessage().contains("abort reason #200"), e.getMessage());
    }

    private static int firstPayloadByte(Message message) {
        ByteBuf frame = WireCodec.encode(message, UnpooledByteBufAllocator.DEFAULT);
        try {
            return frame.getUnsignedByte(Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES);
        } finally {
            frame.release();
        }
    }

    private static ByteBuf body(int type, long requestId) {
        return Unpooled.buffer().writeByte(type).writeLong(requestId);
    }

    private static Message roundTrip(Message message) throws MalformedFrameException {
        ByteBuf frame = WireCodec.encode(message, UnpooledByteBufAllocator.DEFAULT);
        try {
            assertEquals(frame.readableBytes() - Protocol.LENGTH_FIELD_BYTES, frame.readInt());
            return WireCodec.decode(frame);
        } finally {
            frame.release();
        }
    }
}
