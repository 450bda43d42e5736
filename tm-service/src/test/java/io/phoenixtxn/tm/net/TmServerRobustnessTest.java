package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Misbehaving clients get a clear error or a disconnect; the server keeps serving a well-behaved client that shares
 * it throughout (checked after every test).
 */
@Timeout(30)
class TmServerRobustnessTest {
    private static TransactionManagerCore core;
    private static TmServer server;
    private static RemoteTransactionManager goodClient;

    @BeforeAll
    static void start() throws Exception {
        core = NetTestSupport.newCore();
        server = NetTestSupport.startServer(core);
        goodClient = NetTestSupport.connect(server);
    }

    @AfterAll
    static void stop() {
        goodClient.close();
        server.close();
        core.close();
    }

    @AfterEach
    void wellBehavedClientStillWorks() throws Exception {
        long txId = goodClient.begin();
        CommitDecision decision = goodClient.commit(txId, new long[] {txId}, new long[] {1});
        assertTrue(decision.isCommitted(), decision.toString());
        assertTrue(goodClient.connectionsOpened() <= NetTestSupport.clientConfig().connections(),
                "the good client must never have been disconnected, but reconnected");
    }

    @Test
    void garbageBytesCloseTheConnectionWithAReason() throws Exception {
        try (RawClient raw = raw()) {
            raw.sendBytes("GET / HTTP/1.1\r\nHost: tm\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertClosedWithError(raw.readUntilClosed(), "frame too long", TmServerConfig.MAX_FRAME_BYTES);
        }
    }

    @Test
    void oversizeFrameClosesTheConnection() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            raw.sendBytes(ByteBuffer.allocate(8).putInt(64 * 1024 + 1).putInt(0).array());
            assertClosedWithError(raw.readUntilClosed(), "frame too long", "65536");
        }
    }

    @Test
    void negativeFrameLengthClosesTheConnection() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            raw.sendBytes(ByteBuffer.allocate(4).putInt(-1).array());
            assertClosedWithError(raw.readUntilClosed(), "corrupt frame length");
        }
    }

    @Test
    void frameTooShortForARequestIdClosesTheConnection() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            raw.sendBytes(ByteBuffer.allocate(9).putInt(5).put(MessageType.BEGIN.code()).putInt(7).array());
            assertClosedWithError(raw.readUntilClosed(), "shorter than the 9-byte header");
        }
    }

    @Test
    void truncatedFrameFromAVanishingClientIsDropped() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            raw.sendBytes(ByteBuffer.allocate(14).putInt(100).put(MessageType.COMMIT.code()).putLong(3)
                    .put((byte) 0).array());
            raw.shutdownOutput();
            assertTrue(raw.readUntilClosed().isEmpty(), "half a frame gets no answer, only a close");
        }
    }

    @Test
    void truncatedPayloadGetsAnErrorAndTheConnectionStays() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            raw.sendFrame(MessageType.FENCE, 21, new byte[4]);
            assertError(raw.readFrame(), 21, "malformed FENCE(0x04) frame", "truncated");
            assertPingWorks(raw);
        }
    }

    @Test
    void wrongCountsGetAnErrorAndTheConnectionStays() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            byte[] lyingCommit = ByteBuffer.allocate(8 + 8 + 4 + 16).putLong(5).putLong(5).putInt(1000).putLong(1)
                    .putLong(2)
                    .array();
            raw.sendFrame(MessageType.COMMIT, 31, lyingCommit);
            assertError(raw.readFrame(), 31, "declares 1000 rows", "do not match");
            byte[] trailingBytes = ByteBuffer.allocate(8 + 8 + 4 + 4 + 3).putLong(5).putLong(5).putInt(0).putInt(0)
                    .array();
            raw.sendFrame(MessageType.COMMIT, 32, trailingBytes);
            assertError(raw.readFrame(), 32, "3 bytes follow", "do not match the frame length");
            assertPingWorks(raw);
        }
    }

    @Test
    void unknownTypeGetsAnErrorAndTheConnectionStays() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            raw.sendFrame(0x7F, 41, new byte[] {1, 2, 3});
            assertError(raw.readFrame(), 41, "unknown message type 0x7f");
            raw.sendFrame(MessageType.TIMESTAMP, 42, new byte[8]);
            assertError(raw.readFrame(), 42, "is a response");
            raw.sendFrame(MessageType.HELLO, 43, ByteBuffer.allocate(8).putInt(Protocol.MAGIC)
                    .putInt(Protocol.VERSION).array());
            assertError(raw.readFrame(), 43, "duplicate HELLO");
            assertPingWorks(raw);
        }
    }

    @Test
    void versionMismatchNamesBothVersionsThenCloses() throws Exception {
        try (RawClient raw = raw()) {
            RawClient.Frame answer = raw.hello(Protocol.MAGIC, 99);
            assertError(answer, 1, "client speaks version 99", "server speaks versions " + Protocol.MIN_VERSION + " to "
                    + Protocol.VERSION);
            assertTrue(raw.readUntilClosed().isEmpty());
        }
    }

    @Test
    void wrongMagicIsRejected() throws Exception {
        try (RawClient raw = raw()) {
            RawClient.Frame answer = raw.hello(0xCAFEBABE, Protocol.VERSION);
            assertError(answer, 1, "0xCAFEBABE", "not a phoenix-txn TM client");
            assertTrue(raw.readUntilClosed().isEmpty());
        }
    }

    @Test
    void requestBeforeHelloIsRejected() throws Exception {
        try (RawClient raw = raw()) {
            raw.sendFrame(MessageType.BEGIN, 51, new byte[0]);
            assertClosedWithError(raw.readUntilClosed(), "expected HELLO as the first frame");
        }
    }

    @Test
    void malformedFrameBeforeHelloCloses() throws Exception {
        try (RawClient raw = raw()) {
            raw.sendFrame(0x66, 52, new byte[0]);
            assertClosedWithError(raw.readUntilClosed(), "unknown message type 0x66");
        }
    }

    @Test
    void pipelinedRawRequestsAreAllAnswered() throws Exception {
        try (RawClient raw = raw()) {
            raw.hello();
            for (int id = 100; id < 150; id++) {
                raw.sendFrame(MessageType.BEGIN, id, new byte[0]);
            }
            raw.sendFrame(MessageType.LOW_WATER_MARK, 150, new byte[0]);
            boolean[] seen = new boolean[51];
            for (int i = 0; i < 51; i++) {
                RawClient.Frame answer = raw.readFrame();
                assertNotNull(answer);
                assertTrue(answer.is(MessageType.TIMESTAMP), "answer type " + answer.type());
                seen[(int) answer.requestId() - 100] = true;
            }
            for (boolean s : seen) {
                assertTrue(s);
            }
        }
    }

    private static RawClient raw() throws IOException {
        return new RawClient(server.address());
    }

    private static void assertPingWorks(RawClient raw) throws IOException {
        raw.sendFrame(MessageType.PING, 999, new byte[0]);
        RawClient.Frame pong = raw.readFrame();
        assertNotNull(pong, "the connection must survive a bad request");
        assertTrue(pong.is(MessageType.PONG));
        assertEquals(999, pong.requestId());
    }

    private static void assertError(RawClient.Frame frame, long requestId, String... fragments) {
        assertNotNull(frame, "expected an ERROR answer, the server closed instead");
        assertTrue(frame.is(MessageType.ERROR), "expected ERROR, got type " + frame.type());
        assertEquals(requestId, frame.requestId());
        for (String fragment : fragments) {
            assertTrue(frame.text().contains(fragment), "'" + fragment + "' missing from: " + frame.text());
        }
    }

    private static void assertClosedWithError(List<RawClient.Frame> beforeClose, String... fragments) {
        assertEquals(1, beforeClose.size(), "one ERROR, then close");
        RawClient.Frame error = beforeClose.get(0);
        assertTrue(error.is(MessageType.ERROR));
        for (String fragment : fragments) {
            assertTrue(error.text().contains(fragment), "'" + fragment + "' missing from: " + error.text());
        }
    }
}
