package io.phoenixtxn.cluster;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * Questions to the cluster's ZooKeeper: is the server up ({@code ruok}), and which TM server is primary (its
 * advertisement {@code <tm.zk.path>/tm/primary}, {@code host:port#epoch}, read the way clients discover it).
 */
public final class ZooKeeperProbe {
    private static final int TIMEOUT_MS = 3_000;

    /** The advertised primary TM. */
    public record Primary(String host, int port, long epoch) {
    }

    private ZooKeeperProbe() {
    }

    /** True if the server at {@code port} answers {@code ruok} with {@code imok}. */
    public static boolean isServing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(Loopback.HOST, port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write("ruok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return "imok".equals(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
        } catch (IOException e) {
            return false;
        }
    }

    /** The advertised primary, or empty while none is (a failover); an error if ZooKeeper does not answer. */
    public static Optional<Primary> primary(ClusterState state) throws ClusterException {
        HaConfig config = HaConfig.from(Map.of(HaConfig.ZK_QUORUM, state.zkQuorum(), HaConfig.ZK_PATH,
                state.tmZkPath(), HaConfig.ZK_CONNECT_TIMEOUT_MS, Integer.toString(TIMEOUT_MS))::get);
        String path = config.paths().primary();
        try (CuratorFramework zk = ZooKeeperClients.connect(config)) {
            return parse(new String(zk.getData().forPath(path), StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (TmException e) {
            throw new ClusterException("cannot tell which TM is primary: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new ClusterException("cannot read " + path + " from ZooKeeper at " + state.zkQuorum() + ": " + e, e);
        }
    }

    /** {@code host:port#epoch} (the format of {@code ZkPaths}' primary node); empty if it is not one. */
    static Optional<Primary> parse(String advertisement) {
        String text = advertisement.trim();
        int hash = text.lastIndexOf('#');
        int colon = hash < 0 ? -1 : text.lastIndexOf(':', hash);
        if (colon <= 0) {
            return Optional.empty();
        }
        try {
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return Optional.of(new Primary(host, Integer.parseInt(text.substring(colon + 1, hash)),
                    Long.parseLong(text.substring(hash + 1))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
