package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Dead clients are closed after the idle timeout; live ones keep their connection by pinging. */
@Timeout(30)
class IdleConnectionTest {
    private TransactionManagerCore core;
    private TmServer server;

    @BeforeEach
    void start() throws Exception {
        core = NetTestSupport.newCore();
        server = TmServer.start(core, NetTestSupport.serverConfig().withIdleTimeoutSeconds(1));
    }

    @AfterEach
    void stop() {
        server.close();
        core.close();
    }

    @Test
    void silentConnectionIsClosedWithAReason() throws Exception {
        long start = System.nanoTime();
        try (RawClient dead = new RawClient(server.address(), 10_000)) {
            List<RawClient.Frame> beforeClose = dead.readUntilClosed();
            assertEquals(1, beforeClose.size());
            assertTrue(beforeClose.get(0).text().contains("presumed dead"), beforeClose.get(0).text());
            assertTrue(beforeClose.get(0).text().contains(TmServerConfig.IDLE_TIMEOUT_S));
        }
        assertTrue(System.nanoTime() - start >= 900_000_000L, "closed before the idle timeout");
    }

    @Test
    void clientThatGoesSilentAfterTheHandshakeIsClosed() throws Exception {
        try (RawClient dead = new RawClient(server.address(), 10_000)) {
            RawClient.Frame hello = dead.hello();
            assertEquals(1, java.nio.ByteBuffer.wrap(hello.payload()).getInt(4), "server announces its timeout");
            assertEquals(1, dead.readUntilClosed().size());
        }
    }

    @Test
    void pingingClientOutlivesTheIdleTimeout() throws Exception {
        try (RemoteTransactionManager client = NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withConnections(1))) {
            client.begin();
            // Two dead raw clients in a row serve as the clock: each is closed only after a full idle timeout,
            // so when the second is gone the real client has been idle for more than twice the timeout.
            for (int i = 0; i < 2; i++) {
                try (RawClient clock = new RawClient(server.address(), 10_000)) {
                    clock.readUntilClosed();
                }
            }
            assertTrue(client.begin() > 0);
            assertEquals(1, client.connectionsOpened(), "the idle client kept its connection by pinging");
            assertEquals(1, server.connectionCount());
        }
    }
}
