package io.phoenixtxn.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster lives on the loopback interface only: every process binds and advertises {@value #HOST}, and ports
 * are chosen free when the cluster starts (then kept in the state file, so a restarted role comes back on its port).
 */
public final class Loopback {
    public static final String HOST = "127.0.0.1";

    private Loopback() {
    }

    /**
     * {@code count} distinct ports that are free right now: all sockets are held open together so no port is handed
     * out twice. Another program may take one before the role binds it; the role then fails to start, naming it.
     */
    public static List<Integer> freePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST));
                held.add(socket);
                ports.add(socket.getLocalPort());
            }
            return ports;
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }
}
