package io.phoenixtxn.tm.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;

/**
 * The channel pipelines of server and client, so both sides frame identically:
 * <pre>
 *   [tls] -> flush consolidation -> [idle detection] -> frame decoder -> message encoder -> protocol handler
 * </pre>
 * Flush consolidation is the batching: many threads write requests (or worker threads write answers) to one
 * channel, each with its own flush; the handler defers those flushes to one task on the event loop, so a burst of
 * frames leaves in one socket write instead of one syscall each. It sits behind TLS so a burst is also one record.
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
            pipeline.addLast("tls", config.sslContext().newHandler(channel.alloc()));
        }
        pipeline.addLast("flush-batching", new FlushConsolidationHandler(FLUSHES_PER_BATCH, true));
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
        pipeline.addLast("flush-batching", new FlushConsolidationHandler(FLUSHES_PER_BATCH, true));
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
