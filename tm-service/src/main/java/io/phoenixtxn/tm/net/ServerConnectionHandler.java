package io.phoenixtxn.tm.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import javax.net.ssl.SSLException;

/**
 * The server side of one connection: handshake, protocol errors, pings, idle clients. TM requests go to the
 * {@link RequestDispatcher}. Whatever a client sends, the worst outcome is that this one connection closes.
 */
final class ServerConnectionHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final BatchDecider batches;
    private final TmServerConfig config;
    /** Event-loop confined, like all state of this handler. */
    private boolean greeted;
    /** The protocol version the client announced (event-loop confined, set once by its HELLO). */
    private int version;
    private boolean closing;
    /** The hot requests read in this pass of the event loop, decided together when the pass ends. */
    private RequestBatch batch = new RequestBatch();

    ServerConnectionHandler(RequestDispatcher dispatcher, TmServerConfig config) {
        this.dispatcher = dispatcher;
        this.batches = dispatcher.batches();
        this.config = config;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        if (closing) {
            return;
        }
        if (greeted && batches != null && frame.readableBytes() >= Protocol.HEADER_BYTES) {
            int start = frame.readerIndex();
            MessageType type = MessageType.of(frame.readByte());
            long requestId = frame.readLong();
            if (type != null && batch.add(type, requestId, frame)) {
                return;
            }
            frame.readerIndex(start); // not a hot request, or malformed: the general path answers it
        }
        Message message;
        try {
            message = WireCodec.decode(frame);
        } catch (MalformedFrameException e) {
            if (e.hasRequestId() && greeted) {
                LOG.warn("Rejected a request from {}: {}", ctx.channel().remoteAddress(), e.getMessage());
                ctx.writeAndFlush(new Message.ErrorReply(e.requestId(), e.getMessage()));
            } else {
                closeWithError(ctx, e.requestId(), e.getMessage());
            }
            return;
        }
        if (!(message instanceof Message.Request request)) {
            answerOrClose(ctx, message.requestId(), "message type " + message.type() + " is a response; a client"
                    + " sends requests only");
        } else if (!greeted) {
            greet(ctx, request);
        } else if (request instanceof Message.Ping) {
            ctx.writeAndFlush(new Message.Pong(request.requestId()));
        } else if (request instanceof Message.Hello) {
            answerOrClose(ctx, request.requestId(), "duplicate HELLO: the handshake of this connection is done");
        } else if (request instanceof Message.GetStatusReport && version < 5) {
            answerOrClose(ctx, request.requestId(), "STATUS_REPORT needs protocol version 5; this connection"
                    + " announced version " + version);
        } else {
            dispatcher.dispatch(ctx.channel(), request);
        }
    }

    /** The end of a pass over this connection's input: decide the batch read, answer it in one flush. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (!batch.isEmpty()) {
            if (closing) {
                batch.clear();
            } else if (batches.decide(ctx, batch)) {
                batch.clear();
            } else {
                batch = new RequestBatch(); // a worker decides that one
            }
        }
        super.channelReadComplete(ctx);
    }

    private void greet(ChannelHandlerContext ctx, Message.Request request) {
        long id = request.requestId();
        if (!(request instanceof Message.Hello hello)) {
            closeWithError(ctx, id, "expected HELLO as the first frame, got " + request.type() + "; a TM client"
                    + " must send HELLO first");
        } else if (hello.magic() != Protocol.MAGIC) {
            closeWithError(ctx, id, String.format("HELLO magic 0x%08X is not %s; the peer is not a phoenix-txn TM"
                    + " client", hello.magic(), Protocol.MAGIC_TEXT));
        } else if (hello.version() < Protocol.MIN_VERSION || hello.version() > Protocol.VERSION) {
            closeWithError(ctx, id, "TM protocol version mismatch: the client speaks version " + hello.version()
                    + ", this server speaks versions " + Protocol.MIN_VERSION + " to " + Protocol.VERSION
                    + "; run client and server of matching releases");
        } else {
            greeted = true;
            version = hello.version();
            LOG.debug("TM client {} connected (protocol version {})", ctx.channel().remoteAddress(), version);
            ctx.writeAndFlush(new Message.HelloOk(id, version, config.idleTimeoutSeconds()));
        }
    }

    /** After the handshake a bad request only costs an ERROR; before it, the peer is not our client. */
    private void answerOrClose(ChannelHandlerContext ctx, long requestId, String problem) {
        if (greeted) {
            LOG.warn("Rejected a request from {}: {}", ctx.channel().remoteAddress(), problem);
            ctx.writeAndFlush(new Message.ErrorReply(requestId, problem));
        } else {
            closeWithError(ctx, requestId, problem);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            closeWithError(ctx, Protocol.CONNECTION_REQUEST_ID, "no frame for " + config.idleTimeoutSeconds()
                    + " s (" + TmServerConfig.IDLE_TIMEOUT_S + "); live clients ping more often, so this one is"
                    + " presumed dead");
        } else {
            super.userEventTriggered(ctx, event);
        }
    }

    /**
     * A client that does not read its answers must not make the server buffer without bound: stop reading its
     * requests until its answers drain. If it never drains, the idle timeout closes it.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (closing) {
            return;
        }
        if (cause instanceof TooLongFrameException) {
            closeWithError(ctx, Protocol.CONNECTION_REQUEST_ID, "frame too long (" + cause.getMessage()
                    + "); the limit is " + TmServerConfig.MAX_FRAME_BYTES + "=" + config.maxFrameBytes()
                    + " bytes: split the transaction's write set, or raise the limit on server and client");
        } else if (cause instanceof CorruptedFrameException) {
            closeWithError(ctx, Protocol.CONNECTION_REQUEST_ID, "corrupt frame length (" + cause.getMessage()
                    + "); the peer is not speaking the TM protocol or the stream is corrupt");
        } else if (Failures.hasCause(cause, NotSslRecordException.class)) {
            closeQuietly(ctx, "not a TLS record before the handshake (a plain-text client, or garbage) on this TLS"
                    + " port; set " + (config.mutualTls() ? TmTls.ENABLED : RemoteTmConfig.TLS_ENABLED)
                    + "=true on the client");
        } else if (Failures.hasCause(cause, SSLException.class)) {
            closeQuietly(ctx, "TLS failure (" + Failures.describe(cause) + "); does the client have TLS enabled"
                    + " and trust this server's certificate?" + (config.mutualTls() ? " This server requires a client"
                    + " certificate that its trust store (" + TmTls.TRUSTSTORE_LOCATION + ") accepts" : ""));
        } else if (cause instanceof IOException) {
            // Resets and broken pipes: the client went away, nothing to answer.
            LOG.debug("TM connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            closing = true;
            ctx.close();
        } else {
            LOG.warn("Unexpected failure on TM connection from {}; closing it", ctx.channel().remoteAddress(),
                    cause);
            closing = true;
            ctx.close();
        }
    }

    /** Logs why, tells the client in a connection-level ERROR (best effort), and closes. */
    private void closeWithError(ChannelHandlerContext ctx, long requestId, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        LOG.warn("Closing TM connection from {}: {}", ctx.channel().remoteAddress(), reason);
        // Flushed before the close (flush consolidation flushes on close), so a reading client gets the reason.
        ctx.writeAndFlush(new Message.ErrorReply(requestId, reason));
        ctx.close();
    }

    private void closeQuietly(ChannelHandlerContext ctx, String reason) {
        closing = true;
        LOG.warn("Closing TM connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }
}
