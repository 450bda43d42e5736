package io.phoenixtxn.tm.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.timeout.IdleStateEvent;
import io.phoenixtxn.tm.TmException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;

/**
 * One client channel to a TM server, shared by many threads: each request gets a future, requests are
 * pipelined, and answers are matched to futures by request id. A request without an answer in time fails, and
 * the channel is then presumed dead and closed. When the channel closes for any reason, every in-flight request
 * fails with a {@link TmException}: its outcome is unknown to the client (for a commit, the commit protocol
 * decides it, not this connection).
 *
 * <p>Requests of all threads are coalesced: a caller puts its request in the outbox and, if no flush is pending,
 * hands the event loop one flush task; that task encodes everything queued by then into one buffer and writes it
 * with one flush (one system call for a whole batch, one wake-up of the event loop per batch rather than per
 * request). Timeouts are deadlines checked by one periodic sweep per connection, not a timer per request.
 *
 * <p>Futures complete on the channel's event loop; callers that chain slow work must use the {@code *Async}
 * stages of {@link CompletableFuture}.
 */
final class ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    /** Pings at least this often relative to the server's idle timeout, so one lost ping is survivable. */
    private static final int PINGS_PER_IDLE_TIMEOUT = 3;

    private final TmEndpoint endpoint;
    private final RemoteTmConfig config;
    private final LongSupplier requestIds;
    /** The protocol version this connection announces in its HELLO. */
    private final int helloVersion;
    /** Longest interval between two sweeps for overdue requests; shorter for short request timeouts. */
    private static final long MAX_SWEEP_INTERVAL_MS = 100;

    private final Map<Long, PendingCall> pending = new ConcurrentHashMap<>();
    /** Requests not yet written: filled by any thread, drained by the flush task on the event loop. */
    private final ConcurrentLinkedQueue<PendingCall> outbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final Runnable flushTask = this::flushOutbox;
    /** Event-loop confined: the calls of the batch being written. */
    private final List<PendingCall> writing = new ArrayList<>();
    private volatile ScheduledFuture<?> sweeper;
    private volatile Channel channel;
    private volatile String closedBecause;
    /** The server closed the channel before this client did (a TLS-only server does so to plain clients). */
    private volatile boolean closedByPeer;
    /** A caller gave up waiting for an answer here (a pending-status budget ran out); cleared by any answer. */
    private volatile boolean overdue;

    private ClientConnection(TmEndpoint endpoint, RemoteTmConfig config, LongSupplier requestIds, int helloVersion) {
        this.endpoint = endpoint;
        this.config = config;
        this.requestIds = requestIds;
        this.helloVersion = helloVersion;
    }

    /**
     * Connects and handshakes; the future completes when the connection can take requests. Call from a thread that
     * may block briefly: the host name is resolved here, not on an event loop.
     */
    static CompletableFuture<ClientConnection> open(EventLoopGroup group, TmEndpoint endpoint,
                                                    RemoteTmConfig config, LongSupplier requestIds) {
        return open(group, endpoint, config, requestIds, Protocol.TRANSACTION_CLIENT_VERSION);
    }

    /** As above, announcing protocol version {@code helloVersion} (the admin tool's status needs version 5). */
    static CompletableFuture<ClientConnection> open(EventLoopGroup group, TmEndpoint endpoint,
                                                    RemoteTmConfig config, LongSupplier requestIds,
                                                    int helloVersion) {
        ClientConnection connection = new ClientConnection(endpoint, config, requestIds, helloVersion);
        CompletableFuture<ClientConnection> ready = new CompletableFuture<>();
        InetSocketAddress address = new InetSocketAddress(endpoint.host(), endpoint.port());
        if (address.isUnresolved()) {
            ready.completeExceptionally(new TmException("Cannot resolve the TM host " + endpoint.host()
                    + "; check the TM address"));
            return ready;
        }
        new Bootstrap().group(group)
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.connectTimeoutMs())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connection.channel = ch;
                        Pipelines.client(ch, config, endpoint, connection.new Handler());
                    }
                })
                .connect(address)
                .addListener((ChannelFuture connect) -> {
                    if (connect.isSuccess()) {
                        connection.startSweeping();
                        connection.handshake(ready);
                    } else {
                        String reason = "Cannot connect to the TM at " + endpoint.address() + " ("
                                + Failures.describe(connect.cause()) + "); check that the TM server is running and"
                                + " reachable (" + RemoteTmConfig.CONNECT_TIMEOUT_MS + "="
                                + config.connectTimeoutMs() + ")";
                        connection.close(reason);
                        ready.completeExceptionally(new TmException(reason, connect.cause()));
                    }
                });
        return ready;
    }

    /**
     * Sends HELLO. Bounded by connect plus request timeout, not the request timeout alone: the TLS handshake runs
     * first, and a server that just started (a new primary after failover) pays its class loading and JIT here.
     */
    private void handshake(CompletableFuture<ClientConnection> ready) {
        call(new Message.Hello(requestIds.getAsLong(), Protocol.MAGIC, helloVersion),
                (long) config.connectTimeoutMs() + config.requestTimeoutMs())
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        // A TLS-only server closes a plain connection without a word; say what it may mean.
                        String hint = config.sslContext() == null && closedByPeer
                                ? "; if the TM server requires TLS, set " + TmTls.ENABLED + "=true (mutual TLS) or "
                                        + RemoteTmConfig.TLS_ENABLED + "=true" : "";
                        String reason = "Handshake with the TM at " + endpoint.address() + " failed: "
                                + failure.getMessage() + hint;
                        close(reason);
                        ready.completeExceptionally(new TmException(reason, failure));
                    } else if (response instanceof Message.HelloOk ok) {
                        long pingMs = Math.min(config.pingIntervalMs(),
                                Math.max(1, ok.idleTimeoutSeconds() * 1000L / PINGS_PER_IDLE_TIMEOUT));
                        Pipelines.addKeepAlive(channel, pingMs);
                        ready.complete(this);
                    } else {
                        String reason = response instanceof Message.ErrorReply error
                                ? "The TM at " + endpoint.address() + " refused the connection: " + error.message()
                                : "Protocol error: the TM at " + endpoint.address() + " answered HELLO with "
                                + response.type();
                        close(reason);
                        ready.completeExceptionally(new TmException(reason));
                    }
                });
    }

    /** Sends a request; the future fails with {@link NotSentException} if the request never left this client. */
    CompletableFuture<Message.Response> call(Message.Request request) {
        return call(request, config.requestTimeoutMs());
    }

    private CompletableFuture<Message.Response> call(Message.Request request, long timeoutMs) {
        long id = request.requestId();
        PendingCall call = new PendingCall(request, timeoutMs);
        // Registered before the closed check: close() marks first and sweeps second, so one of us fails it.
        pending.put(id, call);
        String closed = closedBecause;
        if (closed != null) {
            failUnsent(id, closed);
            return call.future;
        }
        outbox.add(call);
        if (!flushScheduled.get() && flushScheduled.compareAndSet(false, true)) {
            try {
                channel.eventLoop().execute(flushTask);
            } catch (RejectedExecutionException e) {
                flushScheduled.set(false);
                failOutbox("the TM client is shutting down");
            }
        }
        return call.future;
    }

    /** On the event loop: everything queued so far, in one buffer and one flush. */
    private void flushOutbox() {
        flushScheduled.set(false); // a request queued from now on schedules another flush (perhaps an empty one)
        Channel ch = channel;
        if (!ch.isActive()) {
            failOutbox("the connection to the TM at " + endpoint.address() + " is not open");
            return;
        }
        int bytes = 0;
        for (PendingCall call; (call = outbox.poll()) != null; ) {
            writing.add(call);
            bytes += WireCodec.frameBytes(call.request);
        }
        if (writing.isEmpty()) {
            return;
        }
        ByteBuf frames = ch.alloc().ioBuffer(bytes);
        for (PendingCall call : writing) {
            WireCodec.write(call.request, frames);
        }
        if (writing.size() == 1) {
            long id = writing.get(0).request.requestId();
            // A single frame that failed to go out was not (or not wholly) written: the TM never saw it.
            ch.writeAndFlush(frames).addListener(write -> {
                if (!write.isSuccess()) {
                    failUnsent(id, "sending to the TM at " + endpoint.address() + " failed ("
                            + explain(write.cause()) + ")");
                }
            });
        } else {
            long[] ids = new long[writing.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = writing.get(i).request.requestId();
            }
            // Part of a batch may have gone out before the failure: every request in it has an unknown outcome.
            ch.writeAndFlush(frames).addListener(write -> {
                if (!write.isSuccess()) {
                    close("sending to the TM at " + endpoint.address() + " failed (" + explain(write.cause())
                            + ")");
                }
            });
        }
        writing.clear();
    }

    /** Fails every queued request as never sent. */
    private void failOutbox(String reason) {
        for (PendingCall call; (call = outbox.poll()) != null; ) {
            failUnsent(call.request.requestId(), reason);
        }
    }

    /** Checks deadlines periodically on the event loop: a request timeout costs no timer per request. */
    private void startSweeping() {
        long interval = Math.max(1, Math.min(MAX_SWEEP_INTERVAL_MS, config.requestTimeoutMs() / 10));
        try {
            sweeper = channel.eventLoop().scheduleAtFixedRate(this::expireOverdue, interval, interval,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            close("the TM client is shutting down");
        }
    }

    private void expireOverdue() {
        long now = System.nanoTime();
        for (PendingCall call : pending.values()) {
            if (now - call.deadlineNanos >= 0) {
                timedOut(call.request.requestId(), call.timeoutMs);
            }
        }
    }

    TmEndpoint endpoint() {
        return endpoint;
    }

    boolean isUsable() {
        Channel ch = channel;
        return closedBecause == null && ch != null && ch.isActive();
    }

    /**
     * Usable, and no caller gave up on it since it last answered: callers on a short budget skip a connection whose
     * TM went quiet, instead of each paying the budget until the request timeout closes it.
     */
    boolean isResponsive() {
        return !overdue && isUsable();
    }

    /** A caller stopped waiting for an answer on this connection; it is not closed (its TM may just be slow). */
    void markOverdue() {
        overdue = true;
    }

    /** Closes the channel and fails every in-flight request with {@code reason}. Idempotent. */
    void close(String reason) {
        synchronized (this) {
            if (closedBecause != null) {
                return;
            }
            closedBecause = reason;
        }
        LOG.debug("Closing connection to the TM at {}: {}", endpoint, reason);
        ScheduledFuture<?> sweep = sweeper;
        if (sweep != null) {
            sweep.cancel(false);
        }
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
        for (Long id : pending.keySet()) {
            PendingCall call = pending.remove(id);
            if (call != null) {
                call.fail(new TmException(reason + "; the outcome of " + call.type + " request " + id
                        + " is unknown"));
            }
        }
    }

    private void failUnsent(long id, String reason) {
        PendingCall call = pending.remove(id);
        if (call != null) {
            call.fail(new NotSentException(reason + "; " + call.type + " request " + id + " was not sent"));
        }
    }

    private void timedOut(long id, long timeoutMs) {
        PendingCall call = pending.remove(id);
        if (call == null) {
            return;
        }
        // Closed before the caller hears of the timeout, so its next request cannot pick this channel again.
        close("a request to the TM at " + endpoint.address() + " timed out after " + timeoutMs
                + " ms, so the TM is presumed dead or partitioned");
        call.fail(new TmException("No answer from the TM at " + endpoint.address() + " to " + call.type
                + " request " + id + " within " + timeoutMs + " ms (" + RemoteTmConfig.REQUEST_TIMEOUT_MS
                + (call.type == MessageType.HELLO ? " + " + RemoteTmConfig.CONNECT_TIMEOUT_MS : "")
                + "); its outcome is unknown"));
    }

    private void answer(Message.Response response) {
        overdue = false;
        long id = response.requestId();
        if (id == Protocol.CONNECTION_REQUEST_ID && response instanceof Message.ErrorReply error) {
            close("the TM at " + endpoint.address() + " closed the connection: " + error.message());
            return;
        }
        PendingCall call = pending.remove(id);
        if (call == null) {
            LOG.debug("Dropping answer {} from the TM at {}: its request already failed", response, endpoint);
            return;
        }
        call.complete(response);
    }

    private void ping() {
        call(new Message.Ping(requestIds.getAsLong())).whenComplete((pong, failure) -> {
            if (failure == null && !(pong instanceof Message.Pong)) {
                close("protocol error: the TM at " + endpoint.address() + " answered PING with " + pong.type());
            }
        });
    }

    /** The cause of a channel failure, with the likely fix for TLS mix-ups. */
    private String explain(Throwable cause) {
        if (Failures.hasCause(cause, NotSslRecordException.class)) {
            return "the TM at " + endpoint.address() + " answered in plain text, not TLS; enable TLS on the server ("
                    + TmTls.ENABLED + ", or " + TmServerConfig.TLS_CERT_FILE + " and " + TmServerConfig.TLS_KEY_FILE
                    + ") or turn it off here (" + TmTls.ENABLED + ", " + RemoteTmConfig.TLS_ENABLED + ")";
        }
        if (Failures.hasCause(cause, SSLException.class)) {
            return "TLS handshake failed: " + Failures.describe(cause) + "; check that this client trusts the TM"
                    + " server's certificate (" + TmTls.TRUSTSTORE_LOCATION + ", or " + RemoteTmConfig.TLS_TRUST_FILE
                    + ") and, if the server requires client certificates (" + TmTls.ENABLED + "), that "
                    + TmTls.KEYSTORE_LOCATION + " holds a certificate the server trusts";
        }
        return Failures.describe(cause);
    }

    @Override
    public String toString() {
        return "connection to the TM at " + endpoint + (closedBecause == null ? "" : " (closed: " + closedBecause
                + ")");
    }

    /** Inbound side of the channel; all of it runs on the channel's event loop. */
    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            Message message;
            try {
                message = WireCodec.decode(frame);
            } catch (MalformedFrameException e) {
                String reason = "malformed answer from the TM at " + endpoint.address() + ": " + e.getMessage();
                PendingCall call = e.hasRequestId() ? pending.remove(e.requestId()) : null;
                if (call != null) {
                    call.fail(new TmException(reason));
                } else {
                    close(reason);
                }
                return;
            }
            if (message instanceof Message.Response response) {
                answer(response);
            } else {
                close("protocol error: the TM at " + endpoint.address() + " sent a request (" + message.type()
                        + ")");
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            closedByPeer = closedBecause == null;
            close("the connection to the TM at " + endpoint.address() + " was closed");
            super.channelInactive(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof IdleStateEvent) {
                ping();
            } else {
                super.userEventTriggered(ctx, event);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            close("the connection to the TM at " + endpoint.address() + " failed (" + explain(cause) + ")");
        }
    }

    /** An in-flight request: the request itself (until written), its future and its deadline. */
    private static final class PendingCall {
        final Message.Request request;
        final MessageType type;
        final long timeoutMs;
        final long deadlineNanos;
        final CompletableFuture<Message.Response> future = new CompletableFuture<>();

        PendingCall(Message.Request request, long timeoutMs) {
            this.request = request;
            this.type = request.type();
            this.timeoutMs = timeoutMs;
            this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        }

        void complete(Message.Response response) {
            future.complete(response);
        }

        void fail(TmException failure) {
            future.completeExceptionally(failure);
        }
    }
}
