package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.ConfigValues;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.util.function.Function;

/** Settings of the TM network server. Immutable; {@code with*} methods return a changed copy. */
public final class TmServerConfig {
    public static final String HOST = "phoenix.txn.tm.server.host";
    public static final String PORT = "phoenix.txn.tm.server.port";
    public static final String MAX_FRAME_BYTES = "phoenix.txn.tm.server.max.frame.bytes";
    public static final String IDLE_TIMEOUT_S = "phoenix.txn.tm.server.idle.timeout.s";
    public static final String IO_THREADS = "phoenix.txn.tm.server.io.threads";
    public static final String WORKER_THREADS = "phoenix.txn.tm.server.worker.threads";
    /**
     * PEM certificate chain; server-only TLS (clients not authenticated) is on when this and {@link #TLS_KEY_FILE}
     * are set. Mutual TLS is {@link TmTls#ENABLED} instead; a configuration with both is refused.
     */
    public static final String TLS_CERT_FILE = "phoenix.txn.tm.server.tls.cert.file";
    /** PEM private key (unencrypted PKCS#8) of {@link #TLS_CERT_FILE}. */
    public static final String TLS_KEY_FILE = "phoenix.txn.tm.server.tls.key.file";
    /**
     * How long (microseconds) an I/O thread keeps polling for the next frame after its last work before it sleeps
     * ({@link AdaptiveSpin}); 0 sleeps at once.
     */
    public static final String SPIN_US = "phoenix.txn.tm.server.spin.us";

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 24680;
    public static final int DEFAULT_MAX_FRAME_BYTES = Protocol.DEFAULT_MAX_FRAME_BYTES;
    /** Clients ping well within this (they learn it in the handshake), so only dead clients hit it. */
    public static final int DEFAULT_IDLE_TIMEOUT_S = 60;
    /** A round trip's worth: a client that is pipelining sends its next frame well within it. */
    public static final long DEFAULT_SPIN_US = 50;
    /** The frame length field is an int and the decoder adds its own 4 bytes to the limit. */
    static final int MAX_MAX_FRAME_BYTES = Integer.MAX_VALUE - Protocol.LENGTH_FIELD_BYTES;
    private static final int MIN_MAX_FRAME_BYTES = 1024;

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
        this.port = (int) ConfigValues.checkRange(PORT, port, 0, 65_535);
        this.maxFrameBytes = (int) ConfigValues.checkRange(MAX_FRAME_BYTES, maxFrameBytes, MIN_MAX_FRAME_BYTES,
                MAX_MAX_FRAME_BYTES);
        this.ioThreads = (int) ConfigValues.checkRange(IO_THREADS, ioThreads, 1, 1024);
        this.workerThreads = (int) ConfigValues.checkRange(WORKER_THREADS, workerThreads, 1, 1024);
        this.idleTimeoutSeconds = (int) ConfigValues.checkRange(IDLE_TIMEOUT_S, idleTimeoutSeconds, 1,
                Integer.MAX_VALUE / 1000);
        this.sslContext = sslContext;
        this.spinMicros = ConfigValues.checkRange(SPIN_US, spinMicros, 0, AdaptiveSpin.MAX_WINDOW_MICROS);
        this.mutualTls = mutualTls && sslContext != null;
        this.tlsHandshakeTimeoutMs = ConfigValues.checkRange(TmTls.HANDSHAKE_TIMEOUT_MS, tlsHandshakeTimeoutMs, 1,
                3_600_000);
    }

    /** Every default: 127.0.0.1:{@value #DEFAULT_PORT}, 16 MiB frames, 60 s idle timeout, no TLS. */
    public static TmServerConfig defaults() {
        return from(key -> null);
    }

    /** Reads every key through {@code lookup} (null = default); bad values fail with the key's name. */
    public static TmServerConfig from(Function<String, String> lookup) {
        String certFile = ConfigValues.string(lookup, TLS_CERT_FILE, null);
        String keyFile = ConfigValues.string(lookup, TLS_KEY_FILE, null);
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
                ConfigValues.string(lookup, HOST, DEFAULT_HOST),
                (int) ConfigValues.number(lookup, PORT, DEFAULT_PORT, 0, 65_535),
                (int) ConfigValues.number(lookup, MAX_FRAME_BYTES, DEFAULT_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES,
                        MAX_MAX_FRAME_BYTES),
                (int) ConfigValues.number(lookup, IO_THREADS, ConfigValues.defaultThreads(4), 1, 1024),
                (int) ConfigValues.number(lookup, WORKER_THREADS, ConfigValues.defaultThreads(8), 1, 1024),
                (int) ConfigValues.number(lookup, IDLE_TIMEOUT_S, DEFAULT_IDLE_TIMEOUT_S, 1,
                        Integer.MAX_VALUE / 1000),
                ssl,
                ConfigValues.number(lookup, SPIN_US, DEFAULT_SPIN_US, 0, AdaptiveSpin.MAX_WINDOW_MICROS),
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
