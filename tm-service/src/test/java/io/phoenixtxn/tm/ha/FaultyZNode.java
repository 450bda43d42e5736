package io.phoenixtxn.tm.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link VersionedZNode} on the real ZooKeeper whose next {@code setData} fails the ways a lost connection makes it
 * fail: applied but answered with CONNECTIONLOSS, applied and then retried (as Curator does) into a version
 * mismatch, or lost before it reached the server. Deterministic: the fault is armed by the test, once.
 */
final class FaultyZNode implements VersionedZNode {

    enum Fault {
        /** The write is applied; the caller hears CONNECTIONLOSS. */
        APPLIED_THEN_CONNECTION_LOSS,
        /** The write is applied; the connection is lost; the retry of the same write finds the version moved. */
        APPLIED_THEN_RETRY_SEES_BAD_VERSION,
        /** The connection is lost before the write reaches ZooKeeper. */
        CONNECTION_LOSS_NOT_APPLIED
    }

    private final VersionedZNode real;
    private final AtomicReference<Fault> armed = new AtomicReference<>();
    private final AtomicInteger injected = new AtomicInteger();

    FaultyZNode(CuratorFramework zk, String path) {
        this.real = VersionedZNode.of(zk, path);
    }

    /** The next {@code setData} fails with {@code fault}; later ones succeed again. */
    void failNextWrite(Fault fault) {
        armed.set(fault);
    }

    /** How many faults were injected so far (a test checks its fault was reached). */
    int injected() {
        return injected.get();
    }

    @Override
    public String path() {
        return real.path();
    }

    @Override
    public CuratorFramework client() {
        return real.client();
    }

    @Override
    public Data read() throws Exception {
        return real.read();
    }

    @Override
    public void create(byte[] bytes) throws Exception {
        real.create(bytes);
    }

    @Override
    public int setData(int version, byte[] bytes) throws Exception {
        Fault fault = armed.getAndSet(null);
        if (fault == null) {
            return real.setData(version, bytes);
        }
        injected.incrementAndGet();
        switch (fault) {
            case APPLIED_THEN_CONNECTION_LOSS -> {
                real.setData(version, bytes);
                throw new KeeperException.ConnectionLossException();
            }
            case APPLIED_THEN_RETRY_SEES_BAD_VERSION -> {
                real.setData(version, bytes);
                return real.setData(version, bytes); // throws BadVersionException: the node moved on (by us)
            }
            case CONNECTION_LOSS_NOT_APPLIED -> throw new KeeperException.ConnectionLossException();
            default -> throw new IllegalStateException(fault.name());
        }
    }
}
