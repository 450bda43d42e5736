package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.ConfigValues;
import io.phoenixtxn.tm.TxnSettings;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.util.function.Function;

/**
 * Settings of the TM client ({@link RemoteTransactionManager}); keys, defaults and bounds are declared in
 * {@link TxnSettings}. Immutable; {@code with*} returns a copy, checked against the same bounds.
 */
public final class RemoteTmConfig {
    public static final String CONNECTIONS = TxnSettings.TM_CLIENT_CONNECTIONS.key();
    public static final String REQUEST_TIMEOUT_MS = TxnSettings.TM_CLIENT_REQUEST_TIMEOUT_MS.key();
    public static final String CONNECT_TIMEOUT_MS = TxnSettings.TM_CLIENT_CONNECT_TIMEOUT_MS.key();
    public static final String PING_INTERVAL_MS = TxnSettings.TM_CLIENT_PING_INTERVAL_MS.key();
    public static final String MAX_FRAME_BYTES = TxnSettings.TM_CLIENT_MAX_FRAME_BYTES.key();
    /** How long a pending-status question (a reader on a region server) waits for the TM before it is UNKNOWN. */
    public static final String STATUS_TIMEOUT_MS = TxnSettings.TM_CLIENT_STATUS_TIMEOUT_MS.key();
    /**
     * Server-only TLS on (true/false); trusts {@link #TLS_TRUST_FILE} if set, else the JDK's default trust store.
     * Mutual TLS (this client shows a certificate) is {@link TmTls#ENABLED} instead.
     */
    public static final String TLS_ENABLED = TxnSettings.TM_CLIENT_TLS_ENABLED.key();
    /** PEM certificates to trust for the TM server (a CA or the server's self-signed certificate). */
    public static final String TLS_TRUST_FILE = TxnSettings.TM_CLIENT_TLS_TRUST_FILE.key();
    /**
     * How long (microseconds) the client's I/O threads keep polling after their last work, and a thread waiting
     * alone for an answer spins, before they sleep; 0 sleeps at once.
     */
    public static final String SPIN_US = TxnSettings.TM_CLIENT_SPIN_US.key();

    /** Two channels keep a slow one (a large commit, a GC pause) from stalling every thread. */
    public static final int DEFAULT_CONNECTIONS = TxnSettings.TM_CLIENT_CONNECTIONS.defaultValue().intValue();
    public static final int DEFAULT_REQUEST_TIMEOUT_MS =
            TxnSettings.TM_CLIENT_REQUEST_TIMEOUT_MS.defaultValue().intValue();
    public static final int DEFAULT_CONNECT_TIMEOUT_MS =
            TxnSettings.TM_CLIENT_CONNECT_TIMEOUT_MS.defaultValue().intValue();
    public static final int DEFAULT_PING_INTERVAL_MS =
            TxnSettings.TM_CLIENT_PING_INTERVAL_MS.defaultValue().intValue();
    public static final int DEFAULT_MAX_FRAME_BYTES =
            TxnSettings.TM_CLIENT_MAX_FRAME_BYTES.defaultValue().intValue();
    public static final long DEFAULT_SPIN_US = TxnSettings.TM_CLIENT_SPIN_US.defaultValue();
    /**
     * A healthy TM answers within a round trip; it may itself wait up to 200 ms for a decision in progress
     * ({@code DecisionLog}). 500 ms covers that wait, the round trip and a young-generation GC pause on either
     * side, so a healthy TM is practically never cut off (a cut-off answer is UNKNOWN, which may cost an in-flight
     * writer a force-abort); and it is a tenth of the request timeout, paid once per connection during an outage
     * (a connection that let a question time out is not asked again until it answers something).
     */
    public static final int DEFAULT_STATUS_TIMEOUT_MS =
            TxnSettings.TM_CLIENT_STATUS_TIMEOUT_MS.defaultValue().intValue();

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
        this.connections = (int) TxnSettings.TM_CLIENT_CONNECTIONS.check(connections);
        this.requestTimeoutMs = (int) TxnSettings.TM_CLIENT_REQUEST_TIMEOUT_MS.check(requestTimeoutMs);
        this.connectTimeoutMs = (int) TxnSettings.TM_CLIENT_CONNECT_TIMEOUT_MS.check(connectTimeoutMs);
        this.pingIntervalMs = (int) TxnSettings.TM_CLIENT_PING_INTERVAL_MS.check(pingIntervalMs);
        this.maxFrameBytes = (int) TxnSettings.TM_CLIENT_MAX_FRAME_BYTES.check(maxFrameBytes);
        this.statusTimeoutMs = (int) TxnSettings.TM_CLIENT_STATUS_TIMEOUT_MS.check(statusTimeoutMs);
        this.sslContext = sslContext;
        this.spinMicros = TxnSettings.TM_CLIENT_SPIN_US.check(spinMicros);
    }

    public static RemoteTmConfig defaults() {
        return from(key -> null);
    }

    /** Reads every key through {@code lookup} (null = default); bad values fail with the key's name. */
    public static RemoteTmConfig from(Function<String, String> lookup) {
        String trustFile = TxnSettings.TM_CLIENT_TLS_TRUST_FILE.get(lookup);
        boolean tls = TxnSettings.TM_CLIENT_TLS_ENABLED.get(lookup);
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
                TxnSettings.TM_CLIENT_CONNECTIONS.get(lookup).intValue(),
                TxnSettings.TM_CLIENT_REQUEST_TIMEOUT_MS.get(lookup).intValue(),
                TxnSettings.TM_CLIENT_CONNECT_TIMEOUT_MS.get(lookup).intValue(),
                TxnSettings.TM_CLIENT_PING_INTERVAL_MS.get(lookup).intValue(),
                TxnSettings.TM_CLIENT_MAX_FRAME_BYTES.get(lookup).intValue(),
                TxnSettings.TM_CLIENT_STATUS_TIMEOUT_MS.get(lookup).intValue(),
                ssl,
                TxnSettings.TM_CLIENT_SPIN_US.get(lookup));
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
