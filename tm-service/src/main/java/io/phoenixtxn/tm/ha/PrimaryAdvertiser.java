package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.net.TmEndpoint;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * Publishes where the primary serves as an EPHEMERAL znode, so it vanishes with the session of a TM that died.
 *
 * <p>A node left by a crashed primary lingers until its session times out, which can be longer than a failover; the
 * new primary therefore replaces it, but only a node of an <em>older</em> epoch: epochs grow with every primary, so a
 * deposed primary that reconnects can never delete its successor's advertisement. The node is re-published after a
 * session expiry (ephemeral nodes die with the session) while this TM still holds the lease.
 */
final class PrimaryAdvertiser implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryAdvertiser.class);

    private final CuratorFramework zk;
    private final String path;
    private final BooleanSupplier stillPrimary;
    private final ConnectionStateListener republisher;
    private volatile TmEndpoint published;

    PrimaryAdvertiser(CuratorFramework zk, String path, BooleanSupplier stillPrimary, Executor executor) {
        this.zk = zk;
        this.path = path;
        this.stillPrimary = stillPrimary;
        this.republisher = (client, state) -> {
            if (state == ConnectionState.RECONNECTED && published != null) {
                // Not on Curator's event thread: publishing talks to ZooKeeper.
                executor.execute(this::republish);
            }
        };
        zk.getConnectionStateListenable().addListener(republisher);
    }

    /** Makes {@code endpoint} the advertised primary; fails if a newer primary is already advertised. */
    void publish(TmEndpoint endpoint) throws TmException {
        byte[] data = EndpointCodec.encode(endpoint);
        try {
            while (true) {
                try {
                    zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, data);
                    break;
                } catch (KeeperException.NodeExistsException e) {
                    if (replaceExisting(endpoint, data)) {
                        break;
                    }
                }
            }
        } catch (TmException e) {
            throw e;
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "advertise the primary " + endpoint + " at", path, e);
        }
        published = endpoint;
    }

    /** True when the node now advertises {@code endpoint}; false to retry the create. */
    private boolean replaceExisting(TmEndpoint endpoint, byte[] data) throws Exception {
        Stat stat = new Stat();
        byte[] existing;
        try {
            existing = zk.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            return false;
        }
        if (stat.getEphemeralOwner() == sessionId()) {
            if (!Arrays.equals(existing, data)) {
                zk.setData().withVersion(stat.getVersion()).forPath(path, data);
            }
            return true;
        }
        Optional<TmEndpoint> other = EndpointCodec.decode(existing);
        if (other.isPresent() && other.get().epoch() > endpoint.epoch()) {
            throw new TmException("A newer primary " + other.get() + " is advertised at " + path + "; this"
                    + " transaction manager (epoch " + endpoint.epoch() + ") is no longer primary");
        }
        LOG.info("Replacing the stale primary advertisement {} at {}", other.map(Object::toString)
                .orElse("(unreadable)"), path);
        try {
            zk.delete().withVersion(stat.getVersion()).forPath(path);
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException raced) {
            // Gone or changed meanwhile: look again.
        }
        return false;
    }

    private void republish() {
        TmEndpoint endpoint = published;
        if (endpoint == null || !stillPrimary.getAsBoolean()) {
            return;
        }
        try {
            publish(endpoint);
        } catch (TmException e) {
            LOG.warn("Could not re-advertise the primary after reconnecting to ZooKeeper: {}", e.getMessage());
        }
    }

    /** Removes the advertisement if it is still this session's; the session's end would remove it too. */
    void withdraw() {
        published = null;
        try {
            Stat stat = zk.checkExists().forPath(path);
            if (stat != null && stat.getEphemeralOwner() == sessionId()) {
                zk.delete().withVersion(stat.getVersion()).forPath(path);
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            // Already replaced or removed.
        } catch (Exception e) {
            LOG.warn("Could not withdraw the primary advertisement at {}: {}", path, e.toString());
        }
    }

    @Override
    public void close() {
        zk.getConnectionStateListenable().removeListener(republisher);
        withdraw();
    }

    private long sessionId() throws Exception {
        return zk.getZookeeperClient().getZooKeeper().getSessionId();
    }
}
