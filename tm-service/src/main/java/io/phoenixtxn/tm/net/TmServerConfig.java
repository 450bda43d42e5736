package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.ConfigValues;
import io.phoenixtxn.tm.TxnSettings;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.util.function.Function;

/**
 * Settings of the TM network server; keys, defaults and bounds are declared in {@link TxnSettings}. Immutable;
 * {@code with*} methods return a changed copy, checked against the same bounds.
 */
public final class TmServerConfig {
    public static final String HOST = TxnSettings.TM_SERVER_HOST.key();
    public static final String PORT = TxnSettings.TM_SERVER_PORT.key();
    public static final String MAX_FRAME_BYTES = TxnSettings.TM_SERVER_MAX_FRAME_BYTES.key();
    public static final String IDLE_TIMEOUT_S = TxnSettings.TM_SERVER_IDLE_TIMEOUT_S.key();
    public static final String IO_THREADS = TxnSettings.TM_SERVER_IO_THREADS.key();
    public static final String WORKER_THREADS = TxnSettings.TM_SERVER_WORKER_THREADS.key();
    /**
     * PEM certificate chain; server-only TLS (clients not authenticated) is on when this and {@link #TLS_KEY_FILE}
     * are set. Mutual TLS is {@link TmTls#ENABLED} instead; a configuration with both is refused.
     */
    public static final String TLS_CERT_FILE = TxnSettings.TM_SERVER_TLS_CERT_FILE.key();
    /** PEM private key (unencrypted PKCS#8) of {@link #TLS_CERT_FILE}. */
    public static final String TLS_KEY_FILE = TxnSettings.TM_SERVER_TLS_KEY_FILE.key();
    /**
     * How long (microseconds) an I/O thread keeps polling for the next frame after its last work before it sleeps
     * ({@link AdaptiveSpin}); 0 sleeps at once.
     */
    public static final String SPIN_US = TxnSettings.TM_SERVER_SPIN_US.key();

    public static final String DEFAULT_HOST = TxnSettings.TM_SERVER_HOST.defaultValue();
    public static final int DEFAULT_PORT = TxnSettings.TM_SERVER_PORT.defaultValue().intValue();
    public static final int DEFAULT_MAX_FRAME_BYTES = TxnSettings.TM_SERVER_MAX_FRAME_BYTES.defaultValue().intValue();
    /** Clients ping well within this (they learn it in the handshake), so only dead clients hit it. */
    public static final int DEFAULT_IDLE_TIMEOUT_S =
            TxnSettings.TM_SERVER_IDLE_TIMEOUT_S.defaultValue().intValue();
    /** A round trip's worth: a client that is pipelining sends its next frame well within it. */
    public static final long DEFAULT_SPIN_US = TxnSettings.TM_SERVER_SPIN_US.defaultValue();
    /** The frame length field is an int and the decoder adds its own 4 bytes to the limit. */
    static final int MAX_MAX_FRAME_BYTES = (int) TxnSettings.MAX_MAX_FRAME_BYTES;

    private final String host;
    private final int port;
    private final int maxFrameBytes;
    private final int ioThreads;
    private final int workerThreads;
    private final int idleTimeoutSeconds;
    private final SslContext sslContext;
    private final long spinMicros;
    /** Client certificates required ({@link TmTls}): chosen with the context, so the two never disagree. */
    private final boolean mutualTls;
    private final long tlsHandshakeTimeoutMs;

    private TmServerConfig(String host, int port, int maxFrameBytes, int ioThreads, int workerThreads,
                           int idleTimeoutSeconds, SslContext sslContext, long spinMicros, boolean mutualTls,
                           long tlsHandshakeTimeoutMs) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException(HOST + " is empty; use an address to listen on, e.g. 0.0.0.0");
        }
        this.host = host;
        this.port = (int) TxnSettings.TM_SERVER_PORT.check(port);
        this.maxFrameBytes = (int) TxnSettings.TM_SERVER_MAX_FRAME_BYTES.check(maxFrameBytes);
        this.ioThreads = (int) TxnSettings.TM_SERVER_IO_THREADS.check(ioThreads);
        this.workerThreads = (int) TxnSettings.TM_SERVER_WORKER_THREADS.check(workerThreads);
        this.idleTimeoutSeconds = (int) TxnSettings.TM_SERVER_IDLE_TIMEOUT_S.check(idleTimeoutSeconds);
        this.sslContext = sslContext;
        this.spinMicros = TxnSettings.TM_SERVER_SPIN_US.check(spinMicros);
        this.mutualTls = mutualTls && sslContext != null;
        this.tlsHandshakeTimeoutMs = ConfigValues.checkRange(TmTls.HANDSHAKE_TIMEOUT_MS, tlsHandshakeTimeoutMs, 1,
                3_600_000);
    }

    /** Every default: 127.0.0.1:24680, 16 MiB frames, 60 s idle timeout, no TLS. */
    public static TmServerConfig defaults() {
        return from(key -> null);
    }

    /** Reads every key through {@code lookup} (null = default); bad values fail with the key's name. */
    public static TmServerConfig from(Function<String, String> lookup) {
        String certFile = TxnSettings.TM_SERVER_TLS_CERT_FILE.get(lookup);
        String keyFile = TxnSettings.TM_SERVER_TLS_KEY_FILE.get(lookup);
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("TLS needs both " + TLS_CERT_FILE + " and " + TLS_KEY_FILE
                    + "; set both, or neither for plain TCP");
        }
        boolean mutual = TmTls.enabled(lookup);
        if (mutual && certFile != null) {
            throw new IllegalArgumentException(TmTls.ENABLED + "=true (mutual TLS, key and trust stores) and the"
                    + " server-only TLS keys " + TLS_CERT_FILE + "/" + TLS_KEY_FILE + " are both set; keep one");
        }
        SslContext ssl = mutual ? TmTls.serverContext(lookup) : certFile == null ? null
                : ConfigValues.tls(TLS_CERT_FILE + "/" + TLS_KEY_FILE, () -> SslContextBuilder.forServer(
                        ConfigValues.readableFile(TLS_CERT_FILE, certFile),
                        ConfigValues.readableFile(TLS_KEY_FILE, keyFile)).build());
        return new TmServerConfig(
                TxnSettings.TM_SERVER_HOST.get(lookup),
                TxnSettings.TM_SERVER_PORT.get(lookup).intValue(),
                TxnSettings.TM_SERVER_MAX_FRAME_BYTES.get(lookup).intValue(),
                TxnSettings.TM_SERVER_IO_THREADS.get(lookup).intValue(),
                TxnSettings.TM_SERVER_WORKER_THREADS.get(lookup).intValue(),
                TxnSettings.TM_SERVER_IDLE_TIMEOUT_S.get(lookup).intValue(),
                ssl,
                TxnSettings.TM_SERVER_SPIN_US.get(lookup),
                mutual,
                TmTls.handshakeTimeoutMs(lookup));
    }

    public String host() {
        return host;
    }

    /** 0 = an ephemeral port, see {@link TmServer#address()}. */
    public int port() {
        return port;
    }

    /** Largest frame body accepted; an oversize frame closes its connection. */
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** Netty event loop threads: decode, encode, socket I/O. */
    public int ioThreads() {
        return ioThreads;
    }

    /** Threads that call the TransactionManager (its calls may block on ZooKeeper, see {@link TmServer}). */
    public int workerThreads() {
        return workerThreads;
    }

    /** A connection with no frame for this long is presumed dead and closed. */
    public int idleTimeoutSeconds() {
        return idleTimeoutSeconds;
    }

    /** Server TLS context, or null for plain TCP. */
    public SslContext sslContext() {
        return sslContext;
    }

    /** True when the context requires client certificates ({@link TmTls#ENABLED}). */
    public boolean mutualTls() {
        return mutualTls;
    }

    /** A TLS handshake not completed this long after the connection was accepted closes it. */
    public long tlsHandshakeTimeoutMs() {
        return tlsHandshakeTimeoutMs;
    }

    public TmServerConfig withTlsHandshakeTimeoutMs(long millis) {
        return new TmServerConfig(host, port, maxFrameBytes, ioThreads, workerThreads, idleTimeoutSeconds, sslContext,
                spinMicros, mutualTls, millis);
    }

    /** Microseconds an I/O thread polls for more frames after its last work before it sleeps (0: never polls). */
    public long spinMicros() {
        return spinMicros;
    }

    public TmServerConfig withSpinMicros(long micros) {
        return new TmServerConfig(host, port, maxFrameBytes, ioThreads, workerThreads, idleTimeoutSeconds, sslContext,
                micros, mutualTls, tlsHandshakeTimeoutMs);
    }

    public TmServerConfig withHost(String newHost) {
        return new TmServerConfig(newHost, port, maxFrameBytes, ioThreads, workerThreads, idleTimeoutSeconds,
                sslContext, spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    public TmServerConfig withPort(int newPort) {
        return new TmServerConfig(host, newPort, maxFrameBytes, ioThreads, workerThreads, idleTimeoutSeconds,
                sslContext, spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    public TmServerConfig withMaxFrameBytes(int bytes) {
        return new TmServerConfig(host, port, bytes, ioThreads, workerThreads, idleTimeoutSeconds, sslContext,
                spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    public TmServerConfig withIoThreads(int threads) {
        return new TmServerConfig(host, port, maxFrameBytes, threads, workerThreads, idleTimeoutSeconds,
                sslContext, spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    public TmServerConfig withWorkerThreads(int threads) {
        return new TmServerConfig(host, port, maxFrameBytes, ioThreads, threads, idleTimeoutSeconds, sslContext,
                spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    public TmServerConfig withIdleTimeoutSeconds(int seconds) {
        return new TmServerConfig(host, port, maxFrameBytes, ioThreads, workerThreads, seconds, sslContext,
                spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    /** A server-side context ({@code SslContextBuilder.forServer}), or null for plain TCP. */
    public TmServerConfig withSslContext(SslContext context) {
        if (context != null && !context.isServer()) {
            throw new IllegalArgumentException("TmServerConfig needs a server SslContext (SslContextBuilder"
                    + ".forServer), got a client one");
        }
        return new TmServerConfig(host, port, maxFrameBytes, ioThreads, workerThreads, idleTimeoutSeconds,
                context, spinMicros, mutualTls, tlsHandshakeTimeoutMs);
    }

    @Override
    public String toString() {
        return "TmServerConfig{" + host + ":" + port + ", maxFrameBytes=" + maxFrameBytes + ", ioThreads="
                + ioThreads + ", workerThreads=" + workerThreads + ", idleTimeoutSeconds=" + idleTimeoutSeconds
                + ", spinMicros=" + spinMicros + ", tls="
                + (sslContext == null ? "off" : mutualTls ? "mutual" : "server") + "}";
    }
}
