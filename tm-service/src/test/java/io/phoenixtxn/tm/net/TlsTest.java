package io.phoenixtxn.tm.net;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS with a self-signed certificate. Netty's SelfSignedCertificate needs BouncyCastle (or JDK internals that JDK
 * 17 no longer exports), so the JDK's own keytool makes the key pair instead.
 */
@Timeout(60)
class TlsTest {
    private static final char[] PASSWORD = "changeit".toCharArray();

    @TempDir
    static Path dir;
    private static PrivateKey key;
    private static X509Certificate certificate;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void makeSelfSignedCertificate() throws Exception {
        Path keystore = dir.resolve("tm.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "tm", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(50, TimeUnit.SECONDS), "keytool hung");
        assertEquals(0, process.exitValue(), "keytool failed: " + output);
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD);
        }
        key = (PrivateKey) store.getKey("tm", PASSWORD);
        certificate = (X509Certificate) store.getCertificate("tm");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void roundTripOverTls() throws Exception {
        TmServer server = startTlsServer(SslContextBuilder.forServer(key, certificate).build());
        SslContext clientTls = SslContextBuilder.forClient().trustManager(certificate).build();
        RemoteTransactionManager tm = track(NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withSslContext(clientTls)));
        long txId = tm.begin();
        assertTrue(tm.commit(txId, new long[] {1}, new long[] {2}).isCommitted());
        assertTrue(tm.fence(2) > txId);
        assertTrue(tm.lowWaterMark() >= 0);
    }

    @Test
    void pemFilesConfigureBothSides() throws Exception {
        Path cert = write("tm.crt", "CERTIFICATE", certificate.getEncoded());
        Path pkcs8 = write("tm.key", "PRIVATE KEY", key.getEncoded());
        TmServerConfig serverConfig = TmServerConfig.from(Map.of(
                TmServerConfig.PORT, "0",
                TmServerConfig.TLS_CERT_FILE, cert.toString(),
                TmServerConfig.TLS_KEY_FILE, pkcs8.toString())::get);
        TmServer server = startTlsServer(serverConfig.sslContext());
        RemoteTmConfig clientConfig = RemoteTmConfig.from(Map.of(
                RemoteTmConfig.TLS_ENABLED, "true",
                RemoteTmConfig.TLS_TRUST_FILE, cert.toString())::get);
        RemoteTransactionManager tm = track(NetTestSupport.connect(server, clientConfig));
        assertTrue(tm.begin() > 0);
    }

    @Test
    void plainClientIsTurnedAwayQuickly() throws Exception {
        TmServer server = startTlsServer(SslContextBuilder.forServer(key, certificate).build());
        TmException e = assertThrows(TmException.class, () -> NetTestSupport.connect(server));
        assertTrue(e.getMessage().contains("Handshake with the TM"), e.getMessage());
        assertTrue(e.getMessage().contains(RemoteTmConfig.TLS_ENABLED + "=true"), e.getMessage());
    }

    @Test
    void untrustedServerCertificateFailsTheHandshake() throws Exception {
        TmServer server = startTlsServer(SslContextBuilder.forServer(key, certificate).build());
        SslContext trustsNothingHere = SslContextBuilder.forClient().build(); // JDK trust store only
        TmException e = assertThrows(TmException.class, () -> NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withSslContext(trustsNothingHere)));
        assertTrue(e.getMessage().contains("TLS handshake failed"), e.getMessage());
        assertTrue(e.getMessage().contains(RemoteTmConfig.TLS_TRUST_FILE), e.getMessage());
    }

    private TmServer startTlsServer(SslContext serverTls) throws TmException {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        return track(TmServer.start(core, NetTestSupport.serverConfig().withSslContext(serverTls)));
    }

    private static Path write(String name, String type, byte[] der) throws IOException {
        String pem = "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
        return Files.writeString(dir.resolve(name), pem);
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }
}
