package io.phoenixtxn.tm.net;

import io.netty.channel.EventLoopGroup;
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
 *
 * <p>No lock is held while the resolver is asked (it may wait for a primary to be elected, up to the discovery
 * timeout): a request claims an empty slot by compare-and-set and connects it on its own thread, so a request
 * waiting for discovery never holds up requests on other slots, {@link #usable()} or {@link #close()}.
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
        this.group = Transports.eventLoops(config.connections(), new DefaultThreadFactory("phoenix-txn-tm-client",
                true), config.spinMicros());
        this.slots = new AtomicReferenceArray<>(config.connections());
    }

    /**
     * A connection for one request. Blocks in the resolver when the slot needs a new connection and no primary is
     * known yet (up to the discovery timeout): callers that must not wait use {@link #usable()}.
     */
    CompletableFuture<ClientConnection> acquire() {
        return acquire(Math.floorMod(nextSlot.getAndIncrement(), slots.length()));
    }

    /**
     * A connection that is up and answering, from any slot (round robin first), never connecting and never asking
     * the resolver; null if there is none. Connections to a primary of an older epoch than the floor are skipped.
     */
    ClientConnection usable() {
        int first = nextSlot.getAndIncrement();
        long floor = epochFloor.get();
        for (int i = 0; i < slots.length(); i++) {
            CompletableFuture<ClientConnection> slot = slots.get(Math.floorMod(first + i, slots.length()));
            if (slot != null && slot.isDone() && !slot.isCompletedExceptionally()) {
                ClientConnection connection = slot.join();
                if (connection.isResponsive() && connection.endpoint().epoch() >= floor) {
                    return connection;
                }
            }
        }
        return null;
    }

    /**
     * Connects every slot that has no connection and is not connecting. Runs on the client's control thread: it may
     * wait in the resolver for a primary.
     */
    void connectIdleSlots() {
        for (int slot = 0; slot < slots.length(); slot++) {
            acquire(slot);
        }
    }

    private CompletableFuture<ClientConnection> acquire(int slot) {
        while (true) {
            if (closed) {
                return CompletableFuture.failedFuture(new TmException(RemoteTransactionManager.CLOSED));
            }
            CompletableFuture<ClientConnection> current = slots.get(slot);
            if (isLiveOrConnecting(current)) {
                return current;
            }
            CompletableFuture<ClientConnection> claim = new CompletableFuture<>();
            if (slots.compareAndSet(slot, current, claim)) {
                connect(claim);
                return claim;
            }
        }
    }

    /** Finds the primary and opens a connection into a claimed slot; always completes {@code claim}. */
    private void connect(CompletableFuture<ClientConnection> claim) {
        try {
            TmEndpoint endpoint = currentEndpoint();
            // Checked after the claim is visible: close() either sees the claim (and closes what it becomes) or
            // set the flag before this read.
            if (closed) {
                claim.completeExceptionally(new TmException(RemoteTransactionManager.CLOSED));
                return;
            }
            connectionsOpened.incrementAndGet();
            ClientConnection.open(group, endpoint, config, requestIds).whenComplete((connection, failure) -> {
                if (failure == null) {
                    claim.complete(connection);
                } else {
                    claim.completeExceptionally(failure);
                }
            });
        } catch (TmException | RuntimeException e) {
            claim.completeExceptionally(e);
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

    /** Slots holding a connection that is up (monitoring, tests). */
    int usableConnections() {
        int usable = 0;
        for (int i = 0; i < slots.length(); i++) {
            CompletableFuture<ClientConnection> slot = slots.get(i);
            if (slot != null && slot.isDone() && !slot.isCompletedExceptionally() && slot.join().isUsable()) {
                usable++;
            }
        }
        return usable;
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
