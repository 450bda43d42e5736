package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;

/**
 * The versioned operations on one znode that {@link ZooKeeperTimestampStorage} needs, as ZooKeeper reports them
 * ({@code KeeperException}s included). A seam so tests can make an operation apply on the real ZooKeeper and still
 * report a failure, the way a lost connection does; {@link #of} is the real one, on Curator.
 */
interface VersionedZNode {

    /** The node's bytes and the version they were read at. */
    record Data(byte[] bytes, int version) {
    }

    static VersionedZNode of(CuratorFramework zk, String path) {
        return new CuratorZNode(zk, path);
    }

    String path();

    /** The client, to name the quorum in error messages. */
    CuratorFramework client();

    /** @throws org.apache.zookeeper.KeeperException.NoNodeException when the node does not exist */
    Data read() throws Exception;

    /** @throws org.apache.zookeeper.KeeperException.NodeExistsException when the node exists already */
    void create(byte[] bytes) throws Exception;

    /**
     * Writes {@code bytes} if the node is still at {@code version}; returns the new version.
     *
     * @throws org.apache.zookeeper.KeeperException.BadVersionException when the node moved past {@code version}
     */
    int setData(int version, byte[] bytes) throws Exception;
}
