package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What ZooKeeper says about one cluster's TM deployment, the facts both sides of the "one TM per cluster" rule read:
 * <ul>
 *   <li><b>deployed</b>: the timestamp node ({@link ZkPaths#timestamp()}) exists. A TM server creates it when it
 *       starts ({@link #declare}), before it contends for primacy; nothing deletes it. A client that finds it never
 *       starts a TM of its own.</li>
 *   <li><b>embedded TMs</b>: the ephemeral markers under {@link ZkPaths#embedded()} of JVMs that chose an embedded TM
 *       on this cluster while it was not deployed. A TM server does not become primary while one exists.</li>
 * </ul>
 * Every read is preceded by a {@code sync}, so it sees every write the ensemble committed before it. With ZooKeeper's
 * linearizable writes this makes the two checks a Dekker pair: a TM server writes "deployed" and then reads the
 * markers; a client writes its marker and then reads "deployed". At least one of the two sees the other's write, so
 * an embedded TM and a primary TM server never both decide transactions on the cluster.
 */
public final class TmDeployment {
    private final CuratorFramework zk;
    private final HaConfig config;
    private final ZkPaths paths;

    public TmDeployment(CuratorFramework zk, HaConfig config) {
        this.zk = zk;
        this.config = config;
        this.paths = config.paths();
    }

    /** Marks the cluster as deployed (idempotent): the TM's timestamp storage, created empty if absent. */
    public void declare() throws TmException {
        new ZooKeeperTimestampStorage(zk, paths).getMaxTimestamp();
    }

    /** True when a TM server has ever started on this cluster (under this base path). */
    public boolean exists() throws TmException {
        ZooKeeperClients.sync(zk, config);
        try {
            return zk.checkExists().forPath(paths.timestamp()) != null;
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "look for the TM deployment at", paths.timestamp(), e);
        }
    }

    /** Descriptions of the embedded TMs registered now (host, pid, mode), sorted; empty when there are none. */
    public List<String> embeddedTms() throws TmException {
        ZooKeeperClients.sync(zk, config);
        List<String> names;
        try {
            names = zk.getChildren().forPath(paths.embedded());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "list the embedded TMs at", paths.embedded(), e);
        }
        List<String> described = new ArrayList<>();
        for (String name : names) {
            described.add(describe(name));
        }
        Collections.sort(described);
        return described;
    }

    /** The primary TM advertised now (host, port, epoch), or empty while none is (no TM server, or a failover). */
    public java.util.Optional<io.phoenixtxn.tm.net.TmEndpoint> advertisedPrimary() throws TmException {
        ZooKeeperClients.sync(zk, config);
        try {
            return EndpointCodec.decode(zk.getData().forPath(paths.primary()));
        } catch (KeeperException.NoNodeException e) {
            return java.util.Optional.empty();
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "read the TM advertisement at", paths.primary(), e);
        }
    }

    /** Where this deployment lives, for messages: quorum and base path. */
    public String where() {
        return ZooKeeperClients.quorum(zk) + config.basePath();
    }

    private String describe(String name) {
        try {
            byte[] data = zk.getData().forPath(paths.embedded(name));
            return data == null || data.length == 0 ? name : new String(data, StandardCharsets.UTF_8);
        } catch (Exception e) {
            return name; // gone meanwhile, or unreadable: the name still says which host and process
        }
    }
}
