package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TimestampStorage;
import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * The persistent max-timestamp ("maxTS", FAST'17 sec. 6.3) in one znode. Compare-and-set is a versioned
 * {@code setData}: it succeeds only if nobody wrote the node since the version this TM last saw, so two TMs can never
 * both move the reservation from the same value, and a new primary's epoch starts above every timestamp an old one
 * could issue.
 *
 * <p>The version of this TM's own last write is cached, so a renewal costs one round trip; a stale cache (another TM
 * wrote) shows up as a version mismatch and is re-read before the answer is decided.
 */
public final class ZooKeeperTimestampStorage implements TimestampStorage {
    private final VersionedZNode node;
    /** Value and version of the node as this instance last read or wrote it; null = unknown. */
    private volatile Versioned known;

    private record Versioned(long value, int version) {
    }

    public ZooKeeperTimestampStorage(CuratorFramework zk, String path) {
        this(VersionedZNode.of(zk, path));
    }

    public ZooKeeperTimestampStorage(CuratorFramework zk, ZkPaths paths) {
        this(zk, paths.timestamp());
    }

    /** On any implementation of the node's operations (tests inject failures there). */
    ZooKeeperTimestampStorage(VersionedZNode node) {
        this.node = node;
    }

    @Override
    public long getMaxTimestamp() throws TmException {
        return read().value();
    }

    @Override
    public boolean compareAndSet(long expected, long newMax) throws TmException {
        Versioned current = known;
        while (true) {
            if (current == null || current.value() != expected) {
                current = read();
                if (current.value() != expected) {
                    return false;
                }
            }
            try {
                int version = node.setData(current.version(), LongCodec.encode(newMax));
                known = new Versioned(newMax, version);
                return true;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                // Someone wrote after our last look: re-read and decide on the fresh value.
                current = null;
            } catch (Exception e) {
                // The write may or may not have happened; forget the version so the next call re-reads.
                known = null;
                throw ZooKeeperClients.failure(node.client(), "compare-and-set the max timestamp at", node.path(), e);
            }
        }
    }

    private Versioned read() throws TmException {
        while (true) {
            try {
                VersionedZNode.Data data = node.read();
                Versioned v = new Versioned(LongCodec.decode(data.bytes(), node.path()), data.version());
                known = v;
                return v;
            } catch (KeeperException.NoNodeException e) {
                createIfAbsent();
            } catch (Exception e) {
                throw ZooKeeperClients.failure(node.client(), "read the max timestamp at", node.path(), e);
            }
        }
    }

    /** First use ever: several TMs may race here; whoever loses the create simply reads the winner's node. */
    private void createIfAbsent() throws TmException {
        try {
            node.create(LongCodec.encode(0));
        } catch (KeeperException.NodeExistsException e) {
            // Created concurrently by another TM: fine.
        } catch (Exception e) {
            throw ZooKeeperClients.failure(node.client(), "create the max timestamp node", node.path(), e);
        }
    }
}
