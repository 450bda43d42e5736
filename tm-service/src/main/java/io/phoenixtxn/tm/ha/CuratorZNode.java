package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * {@link VersionedZNode} on Curator. Curator retries an operation whose connection was lost (bounded, see
 * {@link ZooKeeperClients}); a retried {@code setData} whose first attempt was applied comes back as a version
 * mismatch, which is why callers must be able to recognise their own write.
 */
final class CuratorZNode implements VersionedZNode {
    private final CuratorFramework zk;
    private final String path;

    CuratorZNode(CuratorFramework zk, String path) {
        this.zk = zk;
        this.path = path;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public CuratorFramework client() {
        return zk;
    }

    @Override
    public Data read() throws Exception {
        Stat stat = new Stat();
        byte[] bytes = zk.getData().storingStatIn(stat).forPath(path);
        return new Data(bytes, stat.getVersion());
    }

    @Override
    public void create(byte[] bytes) throws Exception {
        zk.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path, bytes);
    }

    @Override
    public int setData(int version, byte[] bytes) throws Exception {
        return zk.setData().withVersion(version).forPath(path, bytes).getVersion();
    }
}
