package io.phoenixtxn.tm.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;

/**
 * The channel pipelines of server and client, so both sides frame identically:
 * <pre>
 *   server: [tls] -> flush consolidation -> idle detection -> frame decoder -> message encoder -> protocol handler
 *   client: [tls] -> frame decoder -> message encoder -> protocol handler
 * </pre>
 * Batching: the client coalesces the requests of all its threads itself ({@link ClientConnection}: one buffer and
 * one flush per batch). The server decides the hot requests of one read together and answers them in one flush
 * ({@link BatchDecider}); answers written while a read is in progress (pings) wait for its end, and workers'
 * answers flush as they come. Consolidation sits behind TLS so a burst is also one record.
 */
final class Pipelines {
    static final String HANDLER = "tm-protocol";
    static final String KEEPALIVE = "keepalive";
    /** Flush anyway after this many deferred flushes, so a steady stream never waits on a full batch. */
    private static final int FLUSHES_PER_BATCH = 256;

    private Pipelines() {
    }

    static void server(Channel channel, TmServerConfig config, ChannelHandler handler) {
        ChannelPipeline pipeline = channel.pipeline();
        if (config.sslContext() != null) {
            // First in the pipeline: no byte reaches the frame decoder before the handshake succeeded (with mutual
            // TLS, before the client's certificate was verified); a stalled handshake is closed at its timeout.
            SslHandler tls = config.sslContext().newHandler(channel.alloc());
            tls.setHandshakeTimeoutMillis(config.tlsHandshakeTimeoutMs());
            pipeline.addLast("tls", tls);
        }
        // Answers written while requests are read leave together at the end of the read; the batch decided then
        // (BatchDecider) flushes at once. Workers' answers (fences, status questions) flush as they come.
        pipeline.addLast("flush-batching", new FlushConsolidationHandler(FLUSHES_PER_BATCH, false));
        // Reader idle only: a client that sends nothing (not even its pings) for this long is dead.
        pipeline.addLast("idle", new IdleStateHandler(config.idleTimeoutSeconds(), 0, 0, TimeUnit.SECONDS));
        framing(pipeline, config.maxFrameBytes());
        pipeline.addLast(HANDLER, handler);
    }

    static void client(Channel channel, RemoteTmConfig config, TmEndpoint endpoint, ChannelHandler handler) {
        ChannelPipeline pipeline = channel.pipeline();
        SslContext ssl = config.sslContext();
        if (ssl != null) {
            // Peer host and port enable SNI, and host name verification when the context asks for it.
            pipeline.addLast("tls", ssl.newHandler(channel.alloc(), endpoint.host(), endpoint.port()));
        }
        // No flush consolidation: the client coalesces requests itself, one buffer and one flush per batch.
        framing(pipeline, config.maxFrameBytes());
        pipeline.addLast(HANDLER, handler);
    }

    /** Client keepalive, installed after the handshake told us the server's idle timeout. */
    static void addKeepAlive(Channel channel, long pingIntervalMs) {
        channel.pipeline().addBefore(HANDLER, KEEPALIVE,
                new IdleStateHandler(0, pingIntervalMs, 0, TimeUnit.MILLISECONDS));
    }

    private static void framing(ChannelPipeline pipeline, int maxFrameBytes) {
        pipeline.addLast("frame-decoder", new FrameDecoder(maxFrameBytes));
        pipeline.addLast("message-encoder", MessageEncoder.INSTANCE);
    }
}
