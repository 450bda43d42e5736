package io.phoenixtxn.tm.net;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.phoenixtxn.tm.ConfigValues;
import io.phoenixtxn.tm.Setting;
import io.phoenixtxn.tm.TxnSettings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutual TLS between the TM server and its clients (applications and region servers), from key and trust stores
 * named by the {@code phoenix.txn.tm.tls.*} keys. The same keys serve both sides, each reading its own
 * hbase-site.xml (or tm-site.xml): the key store holds this side's certificate and private key, the trust store the
 * certificates (a CA's) that the other side's certificate must chain to.
 *
 * <p>Invariant: a TM server with these keys on requires a client certificate (TLS {@code REQUIRE}). A connection
 * whose peer has no trusted certificate fails in the handshake, and {@link io.netty.handler.ssl.SslHandler} hands
 * no byte of it to the frame decoder: no request of an unauthenticated peer is ever read. Authentication only: any
 * holder of a certificate the trust store accepts may use the TM, so the trust store should name a CA that signs
 * phoenix-txn's clients and nothing else.
 */
public final class TmTls {
    /** true: mutual TLS on the TM connection (server and every client must turn it on together). */
    public static final String ENABLED = TxnSettings.TM_TLS_ENABLED.key();
    /** This side's certificate chain and private key (server: the TM's; client: the client's). */
    public static final String KEYSTORE_LOCATION = TxnSettings.TM_TLS_KEYSTORE_LOCATION.key();
    public static final String KEYSTORE_PASSWORD = TxnSettings.TM_TLS_KEYSTORE_PASSWORD.key();
    /** PKCS12 (default) or JKS. */
    public static final String KEYSTORE_TYPE = TxnSettings.TM_TLS_KEYSTORE_TYPE.key();
    /** The certificates the other side's certificate must chain to. */
    public static final String TRUSTSTORE_LOCATION = TxnSettings.TM_TLS_TRUSTSTORE_LOCATION.key();
    public static final String TRUSTSTORE_PASSWORD = TxnSettings.TM_TLS_TRUSTSTORE_PASSWORD.key();
    public static final String TRUSTSTORE_TYPE = TxnSettings.TM_TLS_TRUSTSTORE_TYPE.key();
    /**
     * Server: a connection whose TLS handshake has not completed this long after it was accepted is closed, so a
     * peer that connects and stalls (or dribbles a handshake) holds nothing for long.
     */
    public static final String HANDSHAKE_TIMEOUT_MS = TxnSettings.TM_TLS_HANDSHAKE_TIMEOUT_MS.key();

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private TmTls() {
    }

    static boolean enabled(Function<String, String> lookup) {
        return TxnSettings.TM_TLS_ENABLED.get(lookup);
    }

    static long handshakeTimeoutMs(Function<String, String> lookup) {
        return TxnSettings.TM_TLS_HANDSHAKE_TIMEOUT_MS.get(lookup);
    }

    /** The TM server's context: its key store, and client certificates required and checked against the trust store. */
    static SslContext serverContext(Function<String, String> lookup) {
        KeyManagerFactory keys = keyManagers(lookup);
        TrustManagerFactory trust = trustManagers(lookup);
        return build(() -> SslContextBuilder.forServer(keys).trustManager(trust).clientAuth(ClientAuth.REQUIRE)
                .protocols(PROTOCOLS).build());
    }

    /** A client's context: its certificate from the key store; the server's checked against the trust store. */
    static SslContext clientContext(Function<String, String> lookup) {
        KeyManagerFactory keys = keyManagers(lookup);
        TrustManagerFactory trust = trustManagers(lookup);
        return build(() -> SslContextBuilder.forClient().keyManager(keys).trustManager(trust).protocols(PROTOCOLS)
                .build());
    }

    private static SslContext build(ConfigValues.SslBuild build) {
        try {
            return build.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("Cannot set up TLS from " + ENABLED + "=true and its key and trust"
                    + " stores: " + e.getMessage(), e);
        }
    }

    private static KeyManagerFactory keyManagers(Function<String, String> lookup) {
        char[] password = password(lookup, KEYSTORE_PASSWORD);
        KeyStore store = load(lookup, TxnSettings.TM_TLS_KEYSTORE_LOCATION, TxnSettings.TM_TLS_KEYSTORE_TYPE, password);
        try {
            if (Collections.list(store.aliases()).stream().noneMatch(alias -> isKeyEntry(store, alias))) {
                throw new IllegalArgumentException(KEYSTORE_LOCATION + "=" + lookup.apply(KEYSTORE_LOCATION)
                        + " holds no private key; it must hold this side's certificate and key");
            }
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot use the key store " + KEYSTORE_LOCATION + "="
                    + lookup.apply(KEYSTORE_LOCATION) + ": " + e.getMessage() + "; check " + KEYSTORE_PASSWORD
                    + " (the key's password must equal the store's)", e);
        }
    }

    private static TrustManagerFactory trustManagers(Function<String, String> lookup) {
        KeyStore store = load(lookup, TxnSettings.TM_TLS_TRUSTSTORE_LOCATION, TxnSettings.TM_TLS_TRUSTSTORE_TYPE,
                password(lookup, TRUSTSTORE_PASSWORD));
        try {
            if (store.size() == 0) {
                throw new IllegalArgumentException(TRUSTSTORE_LOCATION + "=" + lookup.apply(TRUSTSTORE_LOCATION)
                        + " holds no certificate; it must hold the CA certificate of the other side");
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(
                    TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot use the trust store " + TRUSTSTORE_LOCATION + "="
                    + lookup.apply(TRUSTSTORE_LOCATION) + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore load(Function<String, String> lookup, Setting<String> locationSetting,
                                 Setting<String> typeSetting, char[] password) {
        String locationKey = locationSetting.key();
        String typeKey = typeSetting.key();
        String location = locationSetting.get(lookup);
        if (location == null) {
            throw new IllegalArgumentException(ENABLED + "=true needs " + locationKey + " (a "
                    + typeSetting.defaultValue() + " or JKS file); set it, or turn TLS off");
        }
        String type = typeSetting.get(lookup);
        try (InputStream in = Files.newInputStream(ConfigValues.readableFile(locationKey, location).toPath())) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password);
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot read " + locationKey + "=" + location + " as a " + type
                    + " store (" + typeKey + "): " + e.getMessage() + "; check the file, its type and the password",
                    e);
        }
    }

    private static char[] password(Function<String, String> lookup, String key) {
        String raw = lookup.apply(key);
        return raw == null ? new char[0] : raw.toCharArray();
    }

    private static boolean isKeyEntry(KeyStore store, String alias) {
        try {
            return store.isKeyEntry(alias);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
