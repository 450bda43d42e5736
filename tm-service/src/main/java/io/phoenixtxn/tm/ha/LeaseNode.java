package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * The lease znode: the holder's id, or "" when released. Every change is a compare-and-set on the znode version,
 * which is what makes acquisition and renewal mutually exclusive.
 */
final class LeaseNode {
    private static final byte[] RELEASED = new byte[0];

    private final CuratorFramework zk;
    private final String path;

    /** What the node held when read; {@code mzxid} identifies the write that produced it. */
    record State(int version, String holder, long mzxid) {
        boolean isReleased() {
            return holder.isEmpty();
        }
    }

    /** Result of an asynchronous operation: ZooKeeper's code, and the stat and data when it succeeded. */
    record Outcome(KeeperException.Code code, Stat stat, byte[] data) {
    }

    LeaseNode(CuratorFramework zk, String path) {
        this.zk = zk;
        this.path = path;
    }

    String path() {
        return path;
    }

    CuratorFramework client() {
        return zk;
    }

    /** Reads the node, leaving {@code watcher} to fire on its next change; creates it released if absent. */
    State read(CuratorWatcher watcher) throws TmException {
        while (true) {
            try {
                Stat stat = new Stat();
                byte[] data = zk.getData().storingStatIn(stat).usingWatcher(watcher).forPath(path);
                return new State(stat.getVersion(), decode(data), stat.getMzxid());
            } catch (KeeperException.NoNodeException e) {
                createReleased();
            } catch (Exception e) {
                throw ZooKeeperClients.failure(zk, "read the lease at", path, e);
            }
        }
    }

    /** Reads the node without leaving a watch; empty if it does not exist. */
    java.util.Optional<State> peek() throws TmException {
        try {
            Stat stat = new Stat();
            byte[] data = zk.getData().storingStatIn(stat).forPath(path);
            return java.util.Optional.of(new State(stat.getVersion(), decode(data), stat.getMzxid()));
        } catch (KeeperException.NoNodeException e) {
            return java.util.Optional.empty();
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "read the lease at", path, e);
        }
    }

    /** Writes {@code holder} if the node is still at {@code version}; the new version, or empty if it moved on. */
    OptionalInt compareAndSet(int version, String holder) throws TmException {
        try {
            Stat stat = zk.setData().withVersion(version).forPath(path, encode(holder));
            return OptionalInt.of(stat.getVersion());
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return OptionalInt.empty();
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "write the lease at", path, e);
        }
    }

    /**
     * Asynchronous compare-and-set: the renewer waits for it no longer than the lease lasts, whatever Curator's
     * retry policy would do.
     */
    CompletableFuture<Outcome> compareAndSetAsync(int version, String holder) {
        CompletableFuture<Outcome> result = new CompletableFuture<>();
        try {
            zk.setData().withVersion(version)
                    .inBackground((client, event) -> result.complete(new Outcome(
                            KeeperException.Code.get(event.getResultCode()), event.getStat(), null)))
                    .forPath(path, encode(holder));
        } catch (Exception e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    CompletableFuture<Outcome> readAsync() {
        CompletableFuture<Outcome> result = new CompletableFuture<>();
        try {
            zk.getData()
                    .inBackground((client, event) -> result.complete(new Outcome(
                            KeeperException.Code.get(event.getResultCode()), event.getStat(), event.getData())))
                    .forPath(path);
        } catch (Exception e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** First use: the lease was never held, so it starts released and the first contender takes it at once. */
    private void createReleased() throws TmException {
        try {
            zk.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path, RELEASED);
        } catch (KeeperException.NodeExistsException e) {
            // Another contender created it first.
        } catch (Exception e) {
            throw ZooKeeperClients.failure(zk, "create the lease node", path, e);
        }
    }

    static byte[] encode(String holder) {
        return holder.getBytes(StandardCharsets.UTF_8);
    }

    static String decode(byte[] data) {
        return data == null ? "" : new String(data, StandardCharsets.UTF_8);
    }
}
