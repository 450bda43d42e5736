package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.ConfigValues;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.util.function.Function;

/** Settings of the TM client ({@link RemoteTransactionManager}). Immutable; {@code with*} returns a copy. */
public final class RemoteTmConfig {
    public static final String CONNECTIONS = "phoenix.txn.tm.client.connections";
    public static final String REQUEST_TIMEOUT_MS = "phoenix.txn.tm.client.request.timeout.ms";
    public static final String CONNECT_TIMEOUT_MS = "phoenix.txn.tm.client.connect.timeout.ms";
    public static final String PING_INTERVAL_MS = "phoenix.txn.tm.client.ping.interval.ms";
    public static final String MAX_FRAME_BYTES = "phoenix.txn.tm.client.max.frame.bytes";
    /** How long a pending-status question (a reader on a region server) waits for the TM before it is UNKNOWN. */
    public static final String STATUS_TIMEOUT_MS = "phoenix.txn.tm.client.status.timeout.ms";
    /**
     * Server-only TLS on (true/false); trusts {@link #TLS_TRUST_FILE} if set, else the JDK's default trust store.
     * Mutual TLS (this client shows a certificate) is {@link TmTls#ENABLED} instead.
     */
    public static final String TLS_ENABLED = "phoenix.txn.tm.client.tls.enabled";
    /** PEM certificates to trust for the TM server (a CA or the server's self-signed certificate). */
    public static final String TLS_TRUST_FILE = "phoenix.txn.tm.client.tls.trust.file";
    /**
     * How long (microseconds) the client's I/O threads keep polling after their last work, and a thread waiting
     * alone for an answer spins, before they sleep; 0 sleeps at once.
     */
    public static final String SPIN_US = "phoenix.txn.tm.client.spin.us";

    /** Two channels keep a slow one (a large commit, a GC pause) from stalling every thread. */
    public static final int DEFAULT_CONNECTIONS = 2;
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
    public static final int DEFAULT_PING_INTERVAL_MS = 10_000;
    public static final int DEFAULT_MAX_FRAME_BYTES = Protocol.DEFAULT_MAX_FRAME_BYTES;
    public static final long DEFAULT_SPIN_US = 50;
    /**
     * A healthy TM answers within a round trip; it may itself wait up to 200 ms for a decision in progress
     * ({@code DecisionLog}). 500 ms covers that wait, the round trip and a young-generation GC pause on either
     * side, so a healthy TM is practically never cut off (a cut-off answer is UNKNOWN, which may cost an in-flight
     * writer a force-abort); and it is a tenth of the request timeout, paid once per connection during an outage
     * (a connection that let a question time out is not asked again until it answers something).
     */
    public static final int DEFAULT_STATUS_TIMEOUT_MS = 500;
    private static final int MIN_MAX_FRAME_BYTES = 1024;
    private static final int MAX_MILLIS = 3_600_000;

    private final int connections;
    private final int requestTimeoutMs;
    private final int connectTimeoutMs;
    private final int pingIntervalMs;
    private final int maxFrameBytes;
    private final int statusTimeoutMs;
    private final SslContext sslContext;
    private final long spinMicros;

    private RemoteTmConfig(int connections, int requestTimeoutMs, int connectTimeoutMs, int pingIntervalMs,
                           int maxFrameBytes, int statusTimeoutMs, SslContext sslContext, long spinMicros) {
        this.connections = (int) ConfigValues.checkRange(CONNECTIONS, connections, 1, 64);
        this.requestTimeoutMs = (int) ConfigValues.checkRange(REQUEST_TIMEOUT_MS, requestTimeoutMs, 1, MAX_MILLIS);
        this.connectTimeoutMs = (int) ConfigValues.checkRange(CONNECT_TIMEOUT_MS, connectTimeoutMs, 1, MAX_MILLIS);
        this.pingIntervalMs = (int) ConfigValues.checkRange(PING_INTERVAL_MS, pingIntervalMs, 1, MAX_MILLIS);
        this.maxFrameBytes = (int) ConfigValues.checkRange(MAX_FRAME_BYTES, maxFrameBytes, MIN_MAX_FRAME_BYTES,
                TmServerConfig.MAX_MAX_FRAME_BYTES);
        this.statusTimeoutMs = (int) ConfigValues.checkRange(STATUS_TIMEOUT_MS, statusTimeoutMs, 1, MAX_MILLIS);
        this.sslContext = sslContext;
        this.spinMicros = ConfigValues.checkRange(SPIN_US, spinMicros, 0, AdaptiveSpin.MAX_WINDOW_MICROS);
    }

    public static RemoteTmConfig defaults() {
        return from(key -> null);
    }

    /** Reads every key through {@code lookup} (null = default); bad values fail with the key's name. */
    public static RemoteTmConfig from(Function<String, String> lookup) {
        String trustFile = ConfigValues.string(lookup, TLS_TRUST_FILE, null);
        boolean tls = ConfigValues.bool(lookup, TLS_ENABLED, false);
        boolean mutual = TmTls.enabled(lookup);
        if (mutual && (tls || trustFile != null)) {
            throw new IllegalArgumentException(TmTls.ENABLED + "=true (mutual TLS, key and trust stores) and the"
                    + " server-only TLS keys " + TLS_ENABLED + "/" + TLS_TRUST_FILE + " are both set; keep one");
        }
        if (trustFile != null && !tls) {
            throw new IllegalArgumentException(TLS_TRUST_FILE + " is set but " + TLS_ENABLED + " is not true; set "
                    + TLS_ENABLED + "=true to use TLS, or remove the trust file");
        }
        SslContext ssl = mutual ? TmTls.clientContext(lookup) : !tls ? null
                : ConfigValues.tls(TLS_ENABLED + "/" + TLS_TRUST_FILE, () -> trustFile == null
                        ? SslContextBuilder.forClient().build()
                        : SslContextBuilder.forClient()
                                .trustManager(ConfigValues.readableFile(TLS_TRUST_FILE, trustFile)).build());
        return new RemoteTmConfig(
                (int) ConfigValues.number(lookup, CONNECTIONS, DEFAULT_CONNECTIONS, 1, 64),
                (int) ConfigValues.number(lookup, REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, 1, MAX_MILLIS),
                (int) ConfigValues.number(lookup, CONNECT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, 1, MAX_MILLIS),
                (int) ConfigValues.number(lookup, PING_INTERVAL_MS, DEFAULT_PING_INTERVAL_MS, 1, MAX_MILLIS),
                (int) ConfigValues.number(lookup, MAX_FRAME_BYTES, DEFAULT_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES,
                        TmServerConfig.MAX_MAX_FRAME_BYTES),
                (int) ConfigValues.number(lookup, STATUS_TIMEOUT_MS, DEFAULT_STATUS_TIMEOUT_MS, 1, MAX_MILLIS),
                ssl,
                ConfigValues.number(lookup, SPIN_US, DEFAULT_SPIN_US, 0, AdaptiveSpin.MAX_WINDOW_MICROS));
    }

    /** Channels shared by every thread of the client; requests are pipelined on them. */
    public int connections() {
        return connections;
    }

    /** A request without an answer this long fails and its channel is closed (the TM is presumed gone). */
    public int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /**
     * Bounds the TCP connect. The TLS and protocol handshake after it get this plus the request timeout: a
     * freshly started server (a new primary) is slow to answer its first connection.
     */
    public int connectTimeoutMs() {
        return connectTimeoutMs;
    }

    /** An idle channel pings this often (or more often, if the server's idle timeout needs it). */
    public int pingIntervalMs() {
        return pingIntervalMs;
    }

    /**
     * Largest frame sent or accepted. A commit whose write set does not fit fails locally, before it could make
     * the server close a channel other threads share; keep it at or below the server's limit.
     */
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /**
     * Longest a pending-status question waits for its answer; then it is UNKNOWN (always safe: the reader falls back
     * to wait and force-abort). Shorter than the request timeout: a reader on a region server holds an RPC handler
     * while it asks, and must not hold it through a TM failover.
     */
    public int statusTimeoutMs() {
        return statusTimeoutMs;
    }

    /** Client TLS context, or null for plain TCP. */
    public SslContext sslContext() {
        return sslContext;
    }

    /**
     * Microseconds the I/O threads poll after their last work, and a caller waiting alone spins, before sleeping
     * (0: never). Costs a little CPU after each request to save the wake-up of a sleeping thread per answer.
     */
    public long spinMicros() {
        return spinMicros;
    }

    public RemoteTmConfig withSpinMicros(long micros) {
        return new RemoteTmConfig(connections, requestTimeoutMs, connectTimeoutMs, pingIntervalMs, maxFrameBytes,
                statusTimeoutMs, sslContext, micros);
    }

    public RemoteTmConfig withConnections(int count) {
        return new RemoteTmConfig(count, requestTimeoutMs, connectTimeoutMs, pingIntervalMs, maxFrameBytes,
                statusTimeoutMs, sslContext, spinMicros);
    }

    public RemoteTmConfig withRequestTimeoutMs(int millis) {
        return new RemoteTmConfig(connections, millis, connectTimeoutMs, pingIntervalMs, maxFrameBytes,
                statusTimeoutMs, sslContext, spinMicros);
    }

    public RemoteTmConfig withConnectTimeoutMs(int millis) {
        return new RemoteTmConfig(connections, requestTimeoutMs, millis, pingIntervalMs, maxFrameBytes,
                statusTimeoutMs, sslContext, spinMicros);
    }

    public RemoteTmConfig withPingIntervalMs(int millis) {
        return new RemoteTmConfig(connections, requestTimeoutMs, connectTimeoutMs, millis, maxFrameBytes,
                statusTimeoutMs, sslContext, spinMicros);
    }

    public RemoteTmConfig withMaxFrameBytes(int bytes) {
        return new RemoteTmConfig(connections, requestTimeoutMs, connectTimeoutMs, pingIntervalMs, bytes,
                statusTimeoutMs, sslContext, spinMicros);
    }

    public RemoteTmConfig withStatusTimeoutMs(int millis) {
        return new RemoteTmConfig(connections, requestTimeoutMs, connectTimeoutMs, pingIntervalMs, maxFrameBytes,
                millis, sslContext, spinMicros);
    }

    /** A client-side context ({@code SslContextBuilder.forClient}), or null for plain TCP. */
    public RemoteTmConfig withSslContext(SslContext context) {
        if (context != null && !context.isClient()) {
            throw new IllegalArgumentException("RemoteTmConfig needs a client SslContext (SslContextBuilder"
                    + ".forClient), got a server one");
        }
        return new RemoteTmConfig(connections, requestTimeoutMs, connectTimeoutMs, pingIntervalMs, maxFrameBytes,
                statusTimeoutMs, context, spinMicros);
    }

    @Override
    public String toString() {
        return "RemoteTmConfig{connections=" + connections + ", requestTimeoutMs=" + requestTimeoutMs
                + ", connectTimeoutMs=" + connectTimeoutMs + ", pingIntervalMs=" + pingIntervalMs
                + ", maxFrameBytes=" + maxFrameBytes + ", statusTimeoutMs=" + statusTimeoutMs + ", spinMicros="
                + spinMicros + ", tls=" + (sslContext != null) + "}";
    }
}
