package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TmException;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** A resolver the test moves by hand, with or without telling its listeners (a late notification). */
final class SwitchableResolver implements TmEndpointResolver {
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final AtomicInteger currentCalls = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile TmEndpoint endpoint;

    SwitchableResolver(TmEndpoint initial) {
        this.endpoint = initial;
    }

    @Override
    public TmEndpoint current() throws TmException {
        currentCalls.incrementAndGet();
        TmEndpoint now = endpoint;
        if (now == null) {
            throw new TmException("no TM primary is elected");
        }
        return now;
    }

    /** Moves the primary silently: the client only learns of it when it asks. */
    void moveSilently(TmEndpoint next) {
        endpoint = next;
    }

    /** Moves the primary and notifies, as the HA resolver does. */
    void moveTo(TmEndpoint next) {
        endpoint = next;
        listeners.forEach(Runnable::run);
    }

    int currentCalls() {
        return currentCalls.get();
    }

    boolean isClosed() {
        return closed.get();
    }

    @Override
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public void close() {
        closed.set(true);
    }
}
