package io.phoenixtxn.tm.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.ThreadFactory;

/**
 * Netty's native epoll transport on Linux when its library loads, NIO everywhere else (or when the system property
 * {@link #NIO_PROPERTY} is true). Epoll costs fewer system calls per batch of frames and per wake-up of an event
 * loop, which is most of what a TM round trip costs. Server and client choose independently; they interoperate.
 */
final class Transports {
    /** Forces NIO (e.g. to compare, or where a native library must not be loaded). */
    static final String NIO_PROPERTY = io.phoenixtxn.tm.TxnSettings.TM_NETTY_NIO.key();

    private static final boolean EPOLL = !io.phoenixtxn.tm.TxnSettings.TM_NETTY_NIO.get(System::getProperty)
            && epollLoads();

    private Transports() {
    }

    /** Event loops that poll for {@code spinMicros} after their last work before they sleep (0: sleep at once). */
    static EventLoopGroup eventLoops(int threads, ThreadFactory factory, long spinMicros) {
        SelectStrategyFactory strategy = AdaptiveSpin.factory(spinMicros);
        return EPOLL ? new EpollEventLoopGroup(threads, factory, strategy)
                : new NioEventLoopGroup(threads, factory, SelectorProvider.provider(), strategy);
    }

    static EventLoopGroup eventLoops(int threads, ThreadFactory factory) {
        return eventLoops(threads, factory, 0);
    }

    static Class<? extends ServerChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static String name() {
        return EPOLL ? "epoll" : "nio";
    }

    private static boolean epollLoads() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }
}
