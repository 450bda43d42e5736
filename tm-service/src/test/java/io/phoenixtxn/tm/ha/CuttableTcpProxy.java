package io.phoenixtxn.tm.ha;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP proxy in front of one server that a test can cut and heal, so one ZooKeeper client loses its connection
 * while the server, and every other client, stay up (a network partition or a slow reconnect after a ZooKeeper
 * restart). While cut, open connections are closed and new ones are accepted and closed at once; the client's
 * session lives on in the server until its timeout, as after a real partition.
 */
final class CuttableTcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> open = new ArrayList<>();
    private final Thread acceptor;
    private boolean cut;
    private volatile boolean closed;

    CuttableTcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "test-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** host:port clients connect to instead of the server. */
    String address() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Closes every proxied connection and refuses new ones until {@link #heal()}. */
    synchronized void cut() {
        cut = true;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    synchronized void heal() {
        cut = false;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = new Socket(target.getAddress(), target.getPort());
                synchronized (this) {
                    if (cut || closed) {
                        closeQuietly(client);
                        closeQuietly(server);
                        continue;
                    }
                    open.add(client);
                    open.add(server);
                }
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side or cut() closed the connection
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "test-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do: the socket is gone either way
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        cut();
    }
}
