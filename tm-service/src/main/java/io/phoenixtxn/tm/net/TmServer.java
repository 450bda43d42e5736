package io.phoenixtxn.tm.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Serves a {@link TransactionManager} over the TM protocol ({@link Protocol}) to {@link RemoteTransactionManager}
 * clients. The server does not own the TM: closing the server leaves it running (HA decides its fate).
 *
 * <p>Threads are daemons, so a server that is never closed does not keep a JVM alive; a standalone TM process
 * keeps its main thread waiting instead.
 */
public final class TmServer implements AutoCloseable {
    /** Bound on each step of {@link #close()}: answering in-flight requests, closing channels, event loops. */
    static final long CLOSE_TIMEOUT_MS = 2_000;
    private static final Logger LOG = LoggerFactory.getLogger(TmServer.class);

    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    private final RequestDispatcher dispatcher;
    private final ChannelGroup connections;
    private final Channel serverChannel;
    private final InetSocketAddress address;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TmServer(EventLoopGroup acceptGroup, EventLoopGroup ioGroup, RequestDispatcher dispatcher,
                     ChannelGroup connections, Channel serverChannel) {
        this.acceptGroup = acceptGroup;
        this.ioGroup = ioGroup;
        this.dispatcher = dispatcher;
        this.connections = connections;
        this.serverChannel = serverChannel;
        this.address = (InetSocketAddress) serverChannel.localAddress();
    }

    /** Binds {@code config.host():config.port()} and serves {@code tm} until {@link #close()}. */
    public static TmServer start(TransactionManager tm, TmServerConfig config) throws TmException {
        Objects.requireNonNull(tm, "tm");
        Objects.requireNonNull(config, "config");
        EventLoopGroup acceptGroup = Transports.eventLoops(1, new DefaultThreadFactory("phoenix-txn-tm-accept",
                true));
        EventLoopGroup ioGroup = Transports.eventLoops(config.ioThreads(), new DefaultThreadFactory(
                "phoenix-txn-tm-io", true), config.spinMicros());
        ChannelGroup connections = new DefaultChannelGroup("tm-connections", GlobalEventExecutor.INSTANCE);
        java.util.concurrent.atomic.AtomicReference<Object> bound = new java.util.concurrent.atomic.AtomicReference<>();
        RequestDispatcher dispatcher = new RequestDispatcher(tm, config.workerThreads(),
                () -> "server.address=" + bound.get() + "\nserver.connections=" + connections.size() + "\n");
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptGroup, ioGroup)
                .channel(Transports.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        connections.add(channel);
                        Pipelines.server(channel, config, new ServerConnectionHandler(dispatcher, config));
                    }
                });
        ChannelFuture bind = bootstrap.bind(config.host(), config.port()).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            dispatcher.close(0);
            shutDown(acceptGroup);
            shutDown(ioGroup);
            throw new TmException("Cannot start the TM server on " + config.host() + ":" + config.port() + " ("
                    + Failures.describe(bind.cause()) + "); set " + TmServerConfig.PORT + " to a free port (0 picks"
                    + " one) or " + TmServerConfig.HOST + " to a local address, or stop the process holding it",
                    bind.cause());
        }
        TmServer server = new TmServer(acceptGroup, ioGroup, dispatcher, connections, bind.channel());
        bound.set(server.address.getHostString() + ":" + server.address.getPort());
        LOG.info("TM server listening on {} ({}, {} transport)", server.address, config, Transports.name());
        return server;
    }

    /** The bound address; with port 0 in the config, this is where the ephemeral port shows. */
    public InetSocketAddress address() {
        return address;
    }

    /** Open client connections (for monitoring and tests). */
    public int connectionCount() {
        return connections.size();
    }

    /** Requests and batches waiting for a worker thread (monitoring). */
    public int queuedRequests() {
        return dispatcher.queued();
    }

    /**
     * Stops listening, tells connected clients the server is going away and closes their channels (their
     * in-flight requests fail at once rather than time out), then stops workers and event loops, each step
     * bounded by {@value #CLOSE_TIMEOUT_MS} ms. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        serverChannel.close().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        connections.writeAndFlush(new Message.ErrorReply(Protocol.CONNECTION_REQUEST_ID,
                "the TM server at " + address + " is shutting down"));
        connections.close().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        dispatcher.close(CLOSE_TIMEOUT_MS);
        shutDown(acceptGroup);
        shutDown(ioGroup);
        LOG.info("TM server on {} closed", address);
    }

    private static void shutDown(EventLoopGroup group) {
        group.shutdownGracefully(0, CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(2 * CLOSE_TIMEOUT_MS);
    }

    @Override
    public String toString() {
        return "TmServer[" + address + "]";
    }
}
