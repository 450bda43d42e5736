package io.phoenixtxn.tm.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class NetConfigTest {

    @Test
    void serverDefaults() {
        TmServerConfig config = TmServerConfig.defaults();
        assertEquals("127.0.0.1", config.host());
        assertEquals(24680, config.port());
        assertEquals(16 << 20, config.maxFrameBytes());
        assertEquals(60, config.idleTimeoutSeconds());
        assertTrue(config.ioThreads() >= 1);
        assertTrue(config.workerThreads() >= 1);
        assertNull(config.sslContext());
    }

    @Test
    void serverKeys() {
        TmServerConfig config = TmServerConfig.from(Map.of(
                TmServerConfig.HOST, "0.0.0.0",
                TmServerConfig.PORT, "0",
                TmServerConfig.MAX_FRAME_BYTES, "1048576",
                TmServerConfig.IDLE_TIMEOUT_S, "5",
                TmServerConfig.IO_THREADS, "3",
                TmServerConfig.WORKER_THREADS, "6")::get);
        assertEquals("0.0.0.0", config.host());
        assertEquals(0, config.port());
        assertEquals(1 << 20, config.maxFrameBytes());
        assertEquals(5, config.idleTimeoutSeconds());
        assertEquals(3, config.ioThreads());
        assertEquals(6, config.workerThreads());
    }

    @Test
    void clientDefaultsAndKeys() {
        RemoteTmConfig defaults = RemoteTmConfig.defaults();
        assertEquals(2, defaults.connections());
        assertEquals(5_000, defaults.requestTimeoutMs());
        assertEquals(500, defaults.statusTimeoutMs());
        assertNull(defaults.sslContext());
        RemoteTmConfig config = RemoteTmConfig.from(Map.of(
                RemoteTmConfig.CONNECTIONS, "4",
                RemoteTmConfig.REQUEST_TIMEOUT_MS, "250",
                RemoteTmConfig.CONNECT_TIMEOUT_MS, "750",
                RemoteTmConfig.PING_INTERVAL_MS, "1000",
                RemoteTmConfig.MAX_FRAME_BYTES, "4096",
                RemoteTmConfig.STATUS_TIMEOUT_MS, "80",
                RemoteTmConfig.TLS_ENABLED, "true")::get);
        assertEquals(4, config.connections());
        assertEquals(250, config.requestTimeoutMs());
        assertEquals(750, config.connectTimeoutMs());
        assertEquals(1000, config.pingIntervalMs());
        assertEquals(4096, config.maxFrameBytes());
        assertEquals(80, config.statusTimeoutMs());
        assertEquals(80, config.withConnections(1).statusTimeoutMs(), "with* copies keep the status budget");
        assertTrue(config.sslContext().isClient());
    }

    @Test
    void badValuesNameTheirKey() {
        assertMessage(() -> TmServerConfig.from(Map.of(TmServerConfig.PORT, "http")::get),
                TmServerConfig.PORT, "not a number");
        assertMessage(() -> TmServerConfig.from(Map.of(TmServerConfig.PORT, "70000")::get),
                TmServerConfig.PORT, "out of range");
        assertMessage(() -> TmServerConfig.from(Map.of(TmServerConfig.IDLE_TIMEOUT_S, "0")::get),
                TmServerConfig.IDLE_TIMEOUT_S, "out of range");
        assertMessage(() -> TmServerConfig.from(Map.of(TmServerConfig.TLS_CERT_FILE, "/x.crt")::get),
                TmServerConfig.TLS_KEY_FILE, "set both");
        assertMessage(() -> TmServerConfig.from(Map.of(TmServerConfig.TLS_CERT_FILE, "/nonexistent.crt",
                TmServerConfig.TLS_KEY_FILE, "/nonexistent.key")::get), "/nonexistent.crt", "not a readable file");
        assertMessage(() -> RemoteTmConfig.from(Map.of(RemoteTmConfig.CONNECTIONS, "0")::get),
                RemoteTmConfig.CONNECTIONS, "out of range");
        assertMessage(() -> RemoteTmConfig.from(Map.of(RemoteTmConfig.TLS_ENABLED, "yes")::get),
                RemoteTmConfig.TLS_ENABLED, "not true or false");
        assertMessage(() -> RemoteTmConfig.from(Map.of(RemoteTmConfig.TLS_TRUST_FILE, "/ca.pem")::get),
                RemoteTmConfig.TLS_ENABLED, "is not true");
        assertMessage(() -> RemoteTmConfig.defaults().withRequestTimeoutMs(0), RemoteTmConfig.REQUEST_TIMEOUT_MS,
                "out of range");
        assertMessage(() -> RemoteTmConfig.from(Map.of(RemoteTmConfig.STATUS_TIMEOUT_MS, "0")::get),
                RemoteTmConfig.STATUS_TIMEOUT_MS, "out of range");
    }

    @Test
    void endpointValidatesItsParts() {
        assertEquals("h:1 (epoch 7)", new TmEndpoint("h", 1, 7).toString());
        assertThrows(IllegalArgumentException.class, () -> new TmEndpoint("", 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new TmEndpoint("h", 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new TmEndpoint("h", 1, -1));
        assertEquals(new TmEndpoint("h", 2, 0), new StaticEndpointResolver("h", 2).current());
    }

    private static void assertMessage(Runnable action, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action::run);
        for (String fragment : fragments) {
            assertTrue(e.getMessage().contains(fragment), "'" + fragment + "' missing from: " + e.getMessage());
        }
    }
}
