package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TmException;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A resolver whose primary can be lost: {@link #current()} then blocks until one is elected (or the resolver is
 * closed), as ZooKeeper discovery waits during a failover.
 */
final class DiscoveryResolver implements TmEndpointResolver {
    private final Object monitor = new Object();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final CountDownLatch callerWaiting = new CountDownLatch(1);
    private TmEndpoint endpoint;
    private boolean closed;

    DiscoveryResolver(TmEndpoint initial) {
        this.endpoint = initial;
    }

    @Override
    public TmEndpoint current() throws TmException {
        synchronized (monitor) {
            while (endpoint == null) {
                if (closed) {
                    throw new TmException("the resolver was closed while waiting for a primary");
                }
                callerWaiting.countDown();
                try {
                    monitor.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TmException("interrupted while waiting for a primary", e);
                }
            }
            return endpoint;
        }
    }

    /** No primary from now on: callers of {@link #current()} wait. */
    void losePrimary() {
        synchronized (monitor) {
            endpoint = null;
        }
        listeners.forEach(Runnable::run);
    }

    /** A primary is advertised again; waiting callers get it and listeners are told. */
    void elect(TmEndpoint primary) {
        synchronized (monitor) {
            endpoint = primary;
            monitor.notifyAll();
        }
        listeners.forEach(Runnable::run);
    }

    /** Waits until some caller is blocked in {@link #current()} for want of a primary. */
    boolean awaitWaitingCaller(long timeout, TimeUnit unit) throws InterruptedException {
        return callerWaiting.await(timeout, unit);
    }

    boolean isClosed() {
        synchronized (monitor) {
            return closed;
        }
    }

    @Override
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public void close() {
        synchronized (monitor) {
            closed = true;
            monitor.notifyAll();
        }
    }
}
