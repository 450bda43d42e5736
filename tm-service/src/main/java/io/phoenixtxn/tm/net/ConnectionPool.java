package io.phoenixtxn.tm.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.phoenixtxn.tm.TmException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A fixed number of connection slots to the current TM primary, handed out round robin. A slot is (re)connected
 * lazily, by the first request that finds it empty, closed or failed, to wherever the resolver says the primary is
 * at that moment; requests arriving while it connects share the same attempt. The pool also keeps the epoch floor:
 * the highest epoch the resolver ever reported.
 */
final class ConnectionPool implements AutoCloseable {
    private final TmEndpointResolver resolver;
    private final RemoteTmConfig config;
    private final LongSupplier requestIds;
    private final EventLoopGroup group;
    private final AtomicReferenceArray<CompletableFuture<ClientConnection>> slots;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final AtomicLong epochFloor = new AtomicLong();
    private final AtomicLong connectionsOpened = new AtomicLong();
    private volatile boolean closed;

    ConnectionPool(TmEndpointResolver resolver, RemoteTmConfig config, LongSupplier requestIds) {
        this.resolver = resolver;
        this.config = config;
        this.requestIds = requestIds;
        // One event loop per connection: each channel gets a thread, and idle loops cost nothing.
        this.group = new NioEventLoopGroup(config.connections(), new DefaultThreadFactory("phoenix-txn-tm-client",
                true));
        this.slots = new AtomicReferenceArray<>(config.connections());
    }

    /** A connection for one request. May block briefly in the resolver when a slot needs a new connection. */
    CompletableFuture<ClientConnection> acquire() {
        int slot = Math.floorMod(nextSlot.getAndIncrement(), slots.length());
        CompletableFuture<ClientConnection> current = slots.get(slot);
        if (!closed && isLiveOrConnecting(current)) {
            return current;
        }
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new TmException(RemoteTransactionManager.CLOSED));
            }
            current = slots.get(slot);
            if (isLiveOrConnecting(current)) {
                return current;
            }
            TmEndpoint endpoint;
            try {
                endpoint = currentEndpoint();
            } catch (TmException e) {
                return CompletableFuture.failedFuture(e);
            }
            CompletableFuture<ClientConnection> fresh = ClientConnection.open(group, endpoint, config, requestIds);
            connectionsOpened.incrementAndGet();
            slots.set(slot, fresh);
            return fresh;
        }
    }

    /**
     * Asks the resolver where the primary is and closes connections to anywhere else (their in-flight requests
     * fail). Runs on the client's control thread, never on an event loop or a resolver callback thread.
     */
    void refresh(String why) {
        TmEndpoint endpoint;
        try {
            endpoint = currentEndpoint();
        } catch (TmException e) {
            dropWhere(any -> true, why + "; no TM primary is known (" + e.getMessage() + ")");
            return;
        }
        dropWhere(other -> !other.equals(endpoint), why + "; the TM primary is now " + endpoint);
    }

    /** Highest epoch the resolver has reported: timestamps at or below it come from a deposed primary. */
    long epochFloor() {
        return epochFloor.get();
    }

    long connectionsOpened() {
        return connectionsOpened.get();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        dropWhere(any -> true, "the TM client was closed");
        group.shutdownGracefully(0, TmServer.CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(2 * TmServer.CLOSE_TIMEOUT_MS);
    }

    private TmEndpoint currentEndpoint() throws TmException {
        TmEndpoint endpoint;
        try {
            endpoint = resolver.current();
        } catch (RuntimeException e) {
            throw new TmException("Cannot find the TM primary: " + resolver + " failed (" + Failures.describe(e)
                    + ")", e);
        }
        if (endpoint == null) {
            throw new TmException("Cannot find the TM primary: " + resolver + " returned no endpoint");
        }
        epochFloor.accumulateAndGet(endpoint.epoch(), Math::max);
        return endpoint;
    }

    /** Closes matching connections, including ones still connecting (as soon as they are up). */
    private void dropWhere(Predicate<TmEndpoint> stale, String reason) {
        for (int i = 0; i < slots.length(); i++) {
            CompletableFuture<ClientConnection> slot = slots.get(i);
            if (slot != null) {
                slot.thenAccept(connection -> {
                    if (stale.test(connection.endpoint())) {
                        connection.close(reason);
                    }
                });
            }
        }
    }

    private static boolean isLiveOrConnecting(CompletableFuture<ClientConnection> slot) {
        if (slot == null) {
            return false;
        }
        if (!slot.isDone()) {
            return true;
        }
        return !slot.isCompletedExceptionally() && slot.join().isUsable();
    }
}
