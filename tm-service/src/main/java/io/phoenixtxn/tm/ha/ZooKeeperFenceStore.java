package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.FenceStore;
import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fences in ZooKeeper: one persistent child per table id holding the newest fence timestamp. A fence is written
 * before the TM returns it, and a new primary loads them all, so fences survive a failover (Apache Omid keeps them
 * in TSO memory only). Writes keep the maximum with a versioned compare-and-set loop, so concurrent or replayed
 * fences never move a table's fence backwards.
 */
public final class ZooKeeperFenceStore implements FenceStore {
    private final CuratorFramework zk;
    private final ZkPaths paths;

    public ZooKeeperFenceStore(CuratorFramework zk, ZkPaths paths) {
        this.zk = zk;
        this.paths = paths;
    }

    @Override
    public void persist(long tableId, long fenceTs) throws TmException {
        String path = paths.fence(tableId);
        try {
            while (true) {
                try {
                    zk.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT)
                            .forPath(path, LongCodec.encode(fenceTs));
                    return;
                } catch (KeeperException.NodeExistsException e) {
                    // The table was fenced before: raise its fence below.
                }
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = zk.getData().storingStatIn(stat).forPath(path);
                } catch (KeeperException.NoNodeException e) {
                    continue;
                }
                if (LongCodec.decode(data, path) >= fenceTs) {
                    return;
                }
                try {
                    zk.setData().withVersion(stat.getVersion()).forPath(path, LongCodec.encode(fenceTs));
                    return;
                } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                    // Raced with another writer: re-read and try again.
                }
            }
        } catch (TmException e) {
            throw e;
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "persist the fence of table " + tableId + " at", path, e);
        }
    }

    @Override
    public Map<Long, Long> loadAll() throws TmException {
        String parent = paths.fences();
        List<String> children;
        try {
            children = zk.getChildren().forPath(parent);
        } catch (KeeperException.NoNodeException e) {
            return new HashMap<>();
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "list the fences under", parent, e);
        }
        Map<Long, Long> fences = new HashMap<>();
        for (String child : children) {
            long tableId;
            try {
                tableId = Long.parseLong(child);
            } catch (NumberFormatException e) {
                throw new TmException("ZooKeeper node " + parent + "/" + child + " is not a table fence written by"
                        + " phoenix-txn; remove it, or point " + HaConfig.ZK_PATH + " at a path of its own", e);
            }
            String path = parent + "/" + child;
            try {
                fences.put(tableId, LongCodec.decode(zk.getData().forPath(path), path));
            } catch (KeeperException.NoNodeException e) {
                // Removed by an operator between listing and reading: nothing to enforce.
            } catch (TmException e) {
                throw e;
            } catch (Exception e) {
                throw ZooKeeperClients.failure(zk, "read the fence at", path, e);
            }
        }
        return fences;
    }
}
