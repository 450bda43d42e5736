package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TmStatus;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Protocol version 5's STATUS_REPORT: what it reports, that only a version-5 connection may ask it, that a
 * version-4 client is still served, and that transaction clients still announce version 4 (so they keep working
 * against a version-4 TM during a rolling upgrade).
 */
@Timeout(30)
class StatusReportTest {
    private static TransactionManagerCore core;
    private static TmServer server;

    @BeforeAll
    static void start() throws Exception {
        core = NetTestSupport.newCore();
        server = NetTestSupport.startServer(core);
    }

    @AfterAll
    static void stop() {
        server.close();
        core.close();
    }

    @Test
    void reportListsOpenTransactionsOldestFirstAndFences() throws Exception {
        try (RemoteTransactionManager client = NetTestSupport.connect(server)) {
            long first = client.begin();
            long second = client.begin();
            long third = client.begin();
            client.commit(second, new long[] {second}, new long[] {7});
            core.finished(new long[] {second});
            long fence = client.fence(42);

            Map<String, String> report = TmStatus.parse(TmAdminClient.statusReport(
                    NetTestSupport.endpoint(server, core.epochBase()), NetTestSupport.clientConfig()));

            List<String> open = TmStatus.values(report, TmStatus.OPEN);
            int firstAt = open.indexOf(Long.toString(first));
            int thirdAt = open.indexOf(Long.toString(third));
            assertTrue(firstAt >= 0 && thirdAt > firstAt, "both listed, oldest first: " + open);
            assertTrue(!open.contains(Long.toString(second)), "a finished transaction is not listed: " + open);
            assertTrue(open.contains(Long.toString(fence)), "an index fence holds the horizon like a transaction");
            assertEquals(Integer.toString(open.size()), report.get("open.count"));
            assertEquals(List.of("42:" + fence), TmStatus.values(report, TmStatus.FENCE));
            assertEquals("true", report.get("serving"));
            assertEquals("true", report.get("lease.held"));
            assertEquals(Long.toString(core.epochBase()), report.get("epoch.base"));
            assertEquals(Integer.toString(Protocol.VERSION), report.get("protocol.version"));
            assertEquals(server.address().getPort(), Integer.parseInt(report.get("server.address").split(":")[1]));
            assertTrue(Integer.parseInt(report.get("server.connections")) >= 2, "the client and the admin: " + report);
            core.finished(new long[] {first, third, fence});
        }
    }

    @Test
    void versionFourClientIsServedButMayNotAskForStatus() throws Exception {
        try (RawClient raw = new RawClient(server.address())) {
            RawClient.Frame ok = raw.hello(Protocol.MAGIC, 4);
            assertTrue(ok.is(MessageType.HELLO_OK), "a version-4 client is accepted");
            assertEquals(4, java.nio.ByteBuffer.wrap(ok.payload()).getInt(), "answered in the client's version");
            raw.sendFrame(MessageType.STATUS_REPORT, 7, new byte[0]);
            RawClient.Frame refused = raw.readFrame();
            assertTrue(refused.is(MessageType.ERROR) && refused.text().contains("needs protocol version 5"),
                    refused.text());
            raw.sendFrame(MessageType.BEGIN, 8, new byte[0]);
            assertTrue(raw.readFrame().is(MessageType.TIMESTAMP), "the connection keeps serving transactions");
        }
    }

    @Test
    void transactionClientsAnnounceVersionFour() throws Exception {
        try (ServerSocket listener = new ServerSocket(0)) {
            CompletableFuture<Integer> announced = CompletableFuture.supplyAsync(() -> {
                try (Socket peer = listener.accept(); DataInputStream in = new DataInputStream(peer.getInputStream())) {
                    in.readInt(); // frame length
                    in.readByte(); // type
                    in.readLong(); // request id
                    in.readInt(); // magic
                    return in.readInt();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            io.netty.channel.EventLoopGroup group = Transports.eventLoops(1,
                    new io.netty.util.concurrent.DefaultThreadFactory("test", true));
            try {
                ClientConnection.open(group, new TmEndpoint("127.0.0.1", listener.getLocalPort(), 0),
                        NetTestSupport.clientConfig(), new AtomicLong()::incrementAndGet);
                assertEquals(Protocol.TRANSACTION_CLIENT_VERSION, announced.get());
                assertEquals(4, Protocol.TRANSACTION_CLIENT_VERSION);
            } finally {
                group.shutdownGracefully(0, 100, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }
    }

    @Test
    void unreachableTmIsNamedWithTheFix() throws Exception {
        int freePort;
        try (ServerSocket s = new ServerSocket(0)) {
            freePort = s.getLocalPort();
        }
        TmException e = assertThrows(TmException.class, () -> TmAdminClient.statusReport(
                new TmEndpoint("127.0.0.1", freePort, 0), NetTestSupport.clientConfig()));
        assertTrue(e.getMessage().contains("Cannot connect to the TM at 127.0.0.1:" + freePort)
                && e.getMessage().contains("check that the TM server is running"), e.getMessage());
    }
}
