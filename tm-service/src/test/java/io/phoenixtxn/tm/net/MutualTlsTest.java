package io.phoenixtxn.tm.net;

import io.netty.handler.ssl.SslContextBuilder;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual TLS on the TM connection over real Netty on loopback ({@link TmTls}): a client whose certificate the
 * server's trust store accepts commits; a client without a certificate, or with one from another CA, is refused in
 * the handshake; plain text, garbage, an oversized handshake and a stalled one are closed. In every refused case the
 * TM behind the server is asked nothing (a counting proxy), and a raw TLS client that pipelines HELLO and BEGIN
 * right behind its half of a TLS 1.3 handshake still gets no BEGIN through: no request of an unauthenticated peer
 * is read. Certificates are made at test time ({@link TestPki}).
 */
@Timeout(60)
class MutualTlsTest {
    private static final String PASSWORD = "test-pass";

    @TempDir
    static Path dir;
    private static TestPki.Identity ca;
    private static Path serverStore;
    private static Path clientStore;
    private static Path rogueStore;
    private static Path trustStore;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final AtomicInteger tmCalls = new AtomicInteger();

    @BeforeAll
    static void makePki() throws Exception {
        ca = TestPki.certificateAuthority("phoenix-txn test CA");
        TestPki.Identity otherCa = TestPki.certificateAuthority("another CA");
        serverStore = TestPki.keyStore(dir, "tm.p12", TestPki.issue(ca, "tm"), PASSWORD);
        clientStore = TestPki.keyStore(dir, "client.p12", TestPki.issue(ca, "client"), PASSWORD);
        rogueStore = TestPki.keyStore(dir, "rogue.p12", TestPki.issue(otherCa, "rogue"), PASSWORD);
        trustStore = TestPki.trustStore(dir, "trust.p12", PASSWORD, ca.certificate());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void authenticatedClientBeginsAndCommits() throws Exception {
        TmServer server = startServer(Map.of());
        RemoteTransactionManager tm = track(NetTestSupport.connect(server, clientConfig(clientStore)));
        long txId = tm.begin();
        assertTrue(tm.commit(txId, new long[] {1}, new long[] {2}).isCommitted());
        assertTrue(tmCalls.get() >= 2, "begin and commit reached the TM");
    }

    @Test
    void clientWithoutCertificateIsRefused() throws Exception {
        TmServer server = startServer(Map.of());
        RemoteTmConfig trustsButShowsNothing = NetTestSupport.clientConfig().withSslContext(
                SslContextBuilder.forClient().trustManager(ca.certificate()).build());
        TmException e = assertThrows(TmException.class, () -> NetTestSupport.connect(server, trustsButShowsNothing));
        assertTrue(e.getMessage().contains("Handshake with the TM") || e.getMessage().contains("TLS"),
                e.getMessage());
        assertEquals(0, tmCalls.get(), "nothing of a client without a certificate reaches the TM");
    }

    @Test
    void clientWithCertificateOfAnotherCaIsRefused() throws Exception {
        TmServer server = startServer(Map.of());
        assertThrows(TmException.class, () -> NetTestSupport.connect(server, clientConfig(rogueStore)));
        assertEquals(0, tmCalls.get());
    }

    /**
     * In TLS 1.3 a client finishes its side of the handshake before the server has checked its certificate, so it
     * may send requests at once: a BEGIN pipelined right behind the handshake must still never be read.
     */
    @Test
    void requestsPipelinedBehindAnUnauthenticatedHandshakeAreNeverRead() throws Exception {
        TmServer server = startServer(Map.of());
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(null, trust.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(
                server.address().getHostString(), server.address().getPort())) {
            socket.setSoTimeout(5_000);
            boolean refused = false;
            try {
                socket.startHandshake();
                OutputStream out = socket.getOutputStream();
                out.write(frame(MessageType.HELLO, 1, ByteBuffer.allocate(8).putInt(Protocol.MAGIC)
                        .putInt(Protocol.VERSION).array()));
                out.write(frame(MessageType.BEGIN, 2, new byte[0]));
                out.flush();
                refused = socket.getInputStream().read() == -1;
            } catch (IOException e) {
                refused = true; // the server's alert: certificate required
            }
            assertTrue(refused, "the server answered a client without a certificate");
        }
        assertEquals(0, tmCalls.get(), "a BEGIN behind an unauthenticated handshake reached the TM");
    }

    @Test
    void plainTextRequestsAreClosedBeforeTheHandshake() throws Exception {
        TmServer server = startServer(Map.of());
        byte[] hello = frame(MessageType.HELLO, 1, ByteBuffer.allocate(8).putInt(Protocol.MAGIC)
                .putInt(Protocol.VERSION).array());
        byte[] begin = frame(MessageType.BEGIN, 2, new byte[0]);
        assertClosedAfter(server, ByteBuffer.allocate(hello.length + begin.length).put(hello).put(begin).array());
        assertEquals(0, tmCalls.get());
    }

    @Test
    void garbageIsClosedBeforeTheHandshake() throws Exception {
        TmServer server = startServer(Map.of());
        byte[] garbage = new byte[4096];
        new Random(42).nextBytes(garbage);
        assertClosedAfter(server, garbage);
        assertEquals(0, tmCalls.get());
    }

    /** A ClientHello announcing 16 MiB: the JDK refuses handshake messages above 32 KiB; we send one record. */
    @Test
    void oversizedHandshakeMessageIsRefused() throws Exception {
        TmServer server = startServer(Map.of());
        ByteBuffer record = ByteBuffer.allocate(5 + 16_384);
        record.put((byte) 0x16).putShort((short) 0x0303).putShort((short) 16_384); // handshake record, TLS 1.2
        record.put((byte) 0x01).put((byte) 0xFF).put((byte) 0xFF).put((byte) 0xFF); // ClientHello of 2^24 - 1 bytes
        assertClosedAfter(server, record.array());
        assertEquals(0, tmCalls.get());
    }

    /** A TLS record longer than any legal one (2^14 + 2048): refused, after at most one such record's bytes. */
    @Test
    void oversizedRecordIsRefused() throws Exception {
        TmServer server = startServer(Map.of());
        ByteBuffer record = ByteBuffer.allocate(5 + 0xFFFF);
        record.put((byte) 0x16).putShort((short) 0x0303).putShort((short) 0xFFFF);
        assertClosedAfter(server, record.array());
        assertEquals(0, tmCalls.get());
    }

    /** A peer that connects and says nothing is closed at the handshake timeout, long before the idle timeout. */
    @Test
    void stalledHandshakeIsClosedAtItsTimeout() throws Exception {
        TmServer server = startServer(Map.of(TmTls.HANDSHAKE_TIMEOUT_MS, "300"));
        long start = System.nanoTime();
        assertClosedAfter(server, new byte[0]);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs < 5_000, "closed after " + tookMs + " ms");
        assertEquals(0, tmCalls.get());
    }

    @Test
    void configurationErrorsNameTheKey() {
        Map<String, String> noKeyStore = new HashMap<>(serverKeys(Map.of()));
        noKeyStore.remove(TmTls.KEYSTORE_LOCATION);
        assertMessage(() -> TmServerConfig.from(noKeyStore::get), TmTls.KEYSTORE_LOCATION);

        Map<String, String> noTrustStore = new HashMap<>(serverKeys(Map.of()));
        noTrustStore.remove(TmTls.TRUSTSTORE_LOCATION);
        assertMessage(() -> TmServerConfig.from(noTrustStore::get), TmTls.TRUSTSTORE_LOCATION);

        Map<String, String> wrongPassword = new HashMap<>(serverKeys(Map.of()));
        wrongPassword.put(TmTls.KEYSTORE_PASSWORD, "not-it");
        assertMessage(() -> TmServerConfig.from(wrongPassword::get), TmTls.KEYSTORE_LOCATION);

        Map<String, String> trustStoreAsKeyStore = new HashMap<>(serverKeys(Map.of()));
        trustStoreAsKeyStore.put(TmTls.KEYSTORE_LOCATION, trustStore.toString());
        assertMessage(() -> TmServerConfig.from(trustStoreAsKeyStore::get), "holds no private key");

        Map<String, String> both = new HashMap<>(serverKeys(Map.of()));
        both.put(TmServerConfig.TLS_CERT_FILE, "/x.crt");
        both.put(TmServerConfig.TLS_KEY_FILE, "/x.key");
        assertMessage(() -> TmServerConfig.from(both::get), TmServerConfig.TLS_CERT_FILE);

        Map<String, String> clientBoth = new HashMap<>(clientKeys(clientStore));
        clientBoth.put(RemoteTmConfig.TLS_ENABLED, "true");
        assertMessage(() -> RemoteTmConfig.from(clientBoth::get), RemoteTmConfig.TLS_ENABLED);

        assertMessage(() -> TmServerConfig.from(Map.of(TmTls.HANDSHAKE_TIMEOUT_MS, "0")::get),
                TmTls.HANDSHAKE_TIMEOUT_MS);
    }

    @Test
    void offByDefault() {
        assertEquals(null, TmServerConfig.defaults().sslContext());
        assertEquals(null, RemoteTmConfig.defaults().sslContext());
        assertTrue(TmServerConfig.from(serverKeys(Map.of())::get).mutualTls());
    }

    private static void assertMessage(org.junit.jupiter.api.function.Executable call, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /**
     * Writes {@code bytes} on a fresh connection and reads until the server closes it: it must close within the
     * read timeout, having sent nothing but TLS records (an alert at most), never a frame of the TM protocol.
     */
    private static void assertClosedAfter(TmServer server, byte[] bytes) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(server.address(), 2_000);
            socket.setSoTimeout(5_000);
            try {
                socket.getOutputStream().write(bytes);
                socket.getOutputStream().flush();
            } catch (IOException e) {
                return; // closed while we were writing
            }
            InputStream in = socket.getInputStream();
            int total = 0;
            try {
                for (int b = in.read(); b != -1; b = in.read()) {
                    if (total == 0) {
                        assertTrue(b == 0x15 || b == 0x16, "the server answered with a non-TLS byte " + b);
                    }
                    total++;
                    assertTrue(total < 16_384, "the server keeps talking");
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server kept the connection open", e);
            } catch (IOException e) {
                // reset by the server: closed
            }
        }
    }

    private static byte[] frame(MessageType type, long requestId, byte[] payload) {
        return ByteBuffer.allocate(4 + 9 + payload.length).putInt(9 + payload.length).put(type.code())
                .putLong(requestId).put(payload).array();
    }

    private TmServer startServer(Map<String, String> extra) throws TmException {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        TransactionManager counting = (TransactionManager) Proxy.newProxyInstance(
                TransactionManager.class.getClassLoader(), new Class<?>[] {TransactionManager.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() != Object.class && !method.getName().equals("close")) {
                        tmCalls.incrementAndGet();
                    }
                    try {
                        return method.invoke(core, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        TmServerConfig config = TmServerConfig.from(serverKeys(extra)::get).withMaxFrameBytes(64 * 1024)
                .withIoThreads(2).withWorkerThreads(2);
        return track(TmServer.start(counting, config));
    }

    private static Map<String, String> serverKeys(Map<String, String> extra) {
        Map<String, String> keys = new HashMap<>(Map.of(
                TmServerConfig.PORT, "0",
                TmTls.ENABLED, "true",
                TmTls.KEYSTORE_LOCATION, serverStore.toString(),
                TmTls.KEYSTORE_PASSWORD, PASSWORD,
                TmTls.TRUSTSTORE_LOCATION, trustStore.toString(),
                TmTls.TRUSTSTORE_PASSWORD, PASSWORD));
        keys.putAll(extra);
        return keys;
    }

    private static Map<String, String> clientKeys(Path keyStore) {
        return Map.of(
                TmTls.ENABLED, "true",
                TmTls.KEYSTORE_LOCATION, keyStore.toString(),
                TmTls.KEYSTORE_PASSWORD, PASSWORD,
                TmTls.TRUSTSTORE_LOCATION, trustStore.toString(),
                TmTls.TRUSTSTORE_PASSWORD, PASSWORD);
    }

    private static RemoteTmConfig clientConfig(Path keyStore) {
        RemoteTmConfig defaults = NetTestSupport.clientConfig();
        return defaults.withSslContext(RemoteTmConfig.from(clientKeys(keyStore)::get).sslContext());
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }
}
