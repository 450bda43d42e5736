package io.phoenixtxn.tm.net;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.ConflictKeys;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The TM client: a {@link TransactionManager} whose calls travel to a {@link TmServer}. Many threads share a few
 * pipelined connections ({@link RemoteTmConfig#connections()}); every call is a future underneath, and the
 * blocking methods wait for it.
 *
 * <p>Failover: when a connection is lost or a request times out, the requests in flight on it fail with a
 * {@link TmException} (their outcome is unknown to this client; for a commit, the commit protocol decides it).
 * The next request reconnects to wherever the {@link TmEndpointResolver} says the primary is. When the resolver
 * reports a new primary, connections to the old one are closed. A request that provably never left the client is
 * sent once more on a fresh connection; nothing else is retried here.
 *
 * <p>A {@code begin} answered with a timestamp at or below the current primary's epoch comes from a deposed
 * primary (a late answer); it is discarded and retried once against the resolver's current primary.
 *
 * <p>Pending-status questions come from readers that hold a region server's RPC handler, so they never wait for a
 * connection or for discovery: without a usable connection they answer UNKNOWN at once and the client reconnects
 * on its control thread; an answer that takes longer than {@link RemoteTmConfig#statusTimeoutMs()} is UNKNOWN; and
 * an answer from a primary of an older epoch than the newest known is UNKNOWN. UNKNOWN is always safe: the reader
 * falls back to Omid LL's wait-then-force-abort.
 *
 * <p>Futures of the {@code *Async} methods complete on I/O threads: chain slow work with the {@code *Async}
 * stages of {@link CompletableFuture}. Their failures are {@link TmException}s (wrapped in
 * {@link CompletionException} when seen through {@code join} or a dependent stage).
 */
public final class RemoteTransactionManager implements TransactionManager {
    static final String CLOSED = "the TM client (RemoteTransactionManager) is closed";
    private static final Logger LOG = LoggerFactory.getLogger(RemoteTransactionManager.class);
    /** Retries and endpoint refreshes are rare; one thread keeps resolver calls off the event loops. */
    private static final int CONTROL_QUEUE = 1024;

    private final TmEndpointResolver resolver;
    private final RemoteTmConfig config;
    private final AtomicLong requestIds = new AtomicLong();
    private final ConnectionPool pool;
    private final ExecutorService control;
    /** A background reconnect for pending-status questions is queued or running (one at a time). */
    private final AtomicBoolean reconnecting = new AtomicBoolean();
    /** A caller is polling for its answer ({@link #await}); others sleep. */
    private final AtomicBoolean spinning = new AtomicBoolean();
    private final long spinNanos;
    /**
     * Longest a blocking call waits: two attempts, each a connect, a handshake (connect + request timeout) and a
     * request. A safety net only: every step has its own, shorter timeout.
     */
    private final long maxWaitMs;
    private volatile boolean closed;

    private RemoteTransactionManager(TmEndpointResolver resolver, RemoteTmConfig config) {
        this.resolver = resolver;
        this.config = config;
        this.pool = new ConnectionPool(resolver, config, requestIds::incrementAndGet);
        this.control = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(CONTROL_QUEUE), new DefaultThreadFactory("phoenix-txn-tm-client-control",
                true));
        this.maxWaitMs = 4L * (config.connectTimeoutMs() + config.requestTimeoutMs()) + 1_000;
        this.spinNanos = config.spinMicros() * 1_000;
    }

    /**
     * Connects to the primary the resolver names and returns once the handshake is done, so a wrong address or
     * version fails here with a clear error. The client owns {@code resolver} from now on and closes it.
     */
    public static RemoteTransactionManager connect(TmEndpointResolver resolver, RemoteTmConfig config)
            throws TmException {
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(config, "config");
        RemoteTransactionManager tm = new RemoteTransactionManager(resolver, config);
        resolver.onChange(tm::primaryChanged);
        try {
            tm.await(tm.pool.acquire(), "connect");
        } catch (TmException e) {
            tm.close();
            throw e;
        }
        return tm;
    }

    @Override
    public long begin() throws TmException {
        return await(beginAsync(), "BEGIN");
    }

    @Override
    public CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            throws TmException {
        // The caller is blocked until the answer, so its arrays cannot change under the encoder: no copy.
        return await(commit(txId, conflictsSince, rowHashes, tableIds, false), "COMMIT");
    }

    /** A bare timestamp from the current primary, newer than its epoch (see {@link #timestampAsync()}). */
    @Override
    public long timestamp() throws TmException {
        return await(timestampAsync(), "NEW_TIMESTAMP");
    }

    /**
     * A bare timestamp (no transaction opened) from the current primary. Like a begin's, an answer at or below the
     * current primary's epoch comes from a deposed primary and is retried once on the current one: a region server
     * bootstraps its version clock with it, and a deposed primary's timestamp may be below versions already written.
     */
    @Override
    public CompletableFuture<Long> timestampAsync() {
        return freshTimestamp(true);
    }

    @Override
    public long fence(long tableId) throws TmException {
        return await(fenceAsync(tableId), "FENCE");
    }

    @Override
    public long beginBulkLoad(long[] tableIds) throws TmException {
        long[] copy = tableIds.clone();
        return await(send(id -> new Message.BulkLoad(id, copy)).thenApply(reply -> timestamp(reply, "BULK_LOAD")),
                "BULK_LOAD");
    }

    @Override
    public long lowWaterMark() throws TmException {
        return await(lowWaterMarkAsync(), "LOW_WATER_MARK");
    }

    /** Blocks at most {@link RemoteTmConfig#statusTimeoutMs()}, never for a connection or a primary. */
    @Override
    public PendingStatus pendingStatus(long writerTxId, long readerTxId) throws TmException {
        return await(pendingStatusAsync(writerTxId, readerTxId), "PENDING_STATUS");
    }

    /**
     * Sent without waiting for the answer: the transactions stop holding the GC horizon a round trip later, and a
     * lost message costs only the rest of their lease.
     */
    @Override
    public void finished(long[] txIds) throws TmException {
        if (txIds.length == 0) {
            return;
        }
        long[] ids = txIds.clone();
        send(id -> new Message.Finished(id, ids)).whenComplete((reply, failure) -> {
            if (failure != null) {
                LOG.debug("FINISHED for {} transactions not delivered ({}); their leases run out instead", ids.length,
                        failure.getMessage());
            }
        });
    }

    @Override
    public long[] keepAlive(long[] txIds) throws TmException {
        long[] ids = txIds.clone();
        return await(send(id -> new Message.KeepAlive(id, ids)).thenApply(reply -> {
            if (reply.response() instanceof Message.TxIds expired) {
                return expired.txIds();
            }
            throw new CompletionException(unexpected(reply, "KEEP_ALIVE", MessageType.TXIDS));
        }), "KEEP_ALIVE");
    }

    /** A horizon from a primary of an older epoch than the newest known is not taken: UNKNOWN. */
    @Override
    public io.phoenixtxn.tm.Horizon horizon() throws TmException {
        return await(send(Message.GetHorizon::new).thenApply(reply -> {
            if (!(reply.response() instanceof Message.HorizonIs h)) {
                throw new CompletionException(unexpected(reply, "HORIZON", MessageType.HORIZON_IS));
            }
            if (reply.connection().endpoint().epoch() < pool.epochFloor() || h.gc() < 0) {
                return io.phoenixtxn.tm.Horizon.UNKNOWN;
            }
            return new io.phoenixtxn.tm.Horizon(h.gc(), h.commitPointSafe());
        }), "HORIZON");
    }

    /** A start timestamp from the current primary, newer than its epoch. */
    public CompletableFuture<Long> beginAsync() {
        return begin(true);
    }

    /** Decides a transaction; the arrays are copied, so the caller may reuse them at once. */
    public CompletableFuture<CommitDecision> commitAsync(long txId, long[] rowHashes, long[] tableIds) {
        return commit(txId, txId, rowHashes, tableIds, true);
    }

    public CompletableFuture<Long> fenceAsync(long tableId) {
        return send(id -> new Message.Fence(id, tableId)).thenApply(reply -> timestamp(reply, "FENCE"));
    }

    public CompletableFuture<Long> lowWaterMarkAsync() {
        return send(Message.GetLowWaterMark::new).thenApply(reply -> timestamp(reply, "LOW_WATER_MARK"));
    }

    /**
     * What the TM knows of a transaction a reader found pending (see {@link TransactionManager#pendingStatus}),
     * within {@link RemoteTmConfig#statusTimeoutMs()}: UNKNOWN at once without a usable connection, UNKNOWN when the
     * budget runs out. Fails only when the TM answers with an error (or the connection breaks mid-question).
     */
    @Override
    public CompletableFuture<PendingStatus> pendingStatusAsync(long writerTxId, long readerTxId) {
        if (closed) {
            return CompletableFuture.failedFuture(new TmException(CLOSED));
        }
        ClientConnection connection = pool.usable();
        if (connection == null) {
            reconnectInBackground();
            return CompletableFuture.completedFuture(PendingStatus.unknown());
        }
        Message.Request question = new Message.GetPendingStatus(requestIds.incrementAndGet(), writerTxId, readerTxId);
        return connection.call(question)
                .thenApply(response -> pendingStatus(new Reply(connection, response)))
                .orTimeout(config.statusTimeoutMs(), TimeUnit.MILLISECONDS)
                .exceptionally(failure -> unanswered(connection, failure));
    }

    /** Connections opened so far, reconnects included (monitoring, tests). */
    long connectionsOpened() {
        return pool.connectionsOpened();
    }

    /** Connections that are up right now (monitoring, tests). */
    int usableConnections() {
        return pool.usableConnections();
    }

    /**
     * Closes every connection (in-flight requests fail), the I/O threads and the resolver. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pool.close();
        control.shutdownNow();
        try {
            resolver.close();
        } catch (RuntimeException e) {
            LOG.warn("Closing the TM endpoint resolver {} failed", resolver, e);
        }
    }

    @Override
    public String toString() {
        return "RemoteTransactionManager[" + resolver + ", " + config + "]";
    }

    private CompletableFuture<Long> begin(boolean mayRetry) {
        return send(Message.Begin::new).thenCompose(reply -> {
            long ts = timestamp(reply, "BEGIN");
            long epoch = pool.epochFloor();
            if (ts > epoch) {
                return CompletableFuture.completedFuture(ts);
            }
            String stale = "the TM at " + reply.connection().endpoint().address() + " answered BEGIN with timestamp "
                    + ts + ", at or below the current primary's epoch " + epoch + ", so it is a deposed primary";
            reply.connection().close(stale);
            if (!mayRetry) {
                return CompletableFuture.failedFuture(new TmException("BEGIN failed twice: " + stale
                        + "; the TM primary is changing, retry the transaction"));
            }
            return onControlThread(() -> {
                pool.refresh(stale);
                return begin(false);
            });
        });
    }

    private CompletableFuture<Long> freshTimestamp(boolean mayRetry) {
        return send(Message.GetTimestamp::new).thenCompose(reply -> {
            long ts = timestamp(reply, "NEW_TIMESTAMP");
            long epoch = pool.epochFloor();
            if (ts > epoch) {
                return CompletableFuture.completedFuture(ts);
            }
            String stale = "the TM at " + reply.connection().endpoint().address() + " answered NEW_TIMESTAMP with "
                    + ts + ", at or below the current primary's epoch " + epoch + ", so it is a deposed primary";
            reply.connection().close(stale);
            if (!mayRetry) {
                return CompletableFuture.failedFuture(new TmException("NEW_TIMESTAMP failed twice: " + stale
                        + "; the TM primary is changing, retry"));
            }
            return onControlThread(() -> {
                pool.refresh(stale);
                return freshTimestamp(false);
            });
        });
    }

    private CompletableFuture<CommitDecision> commit(long txId, long conflictsSince, long[] rowHashes,
                                                     long[] tableIds, boolean copy) {
        Objects.requireNonNull(rowHashes, "rowHashes");
        Objects.requireNonNull(tableIds, "tableIds");
        long frameBytes = WireCodec.commitBodyBytes(rowHashes.length, tableIds.length);
        if (frameBytes > config.maxFrameBytes()) {
            // Checked here: the server would close the whole shared connection on an oversize frame.
            return CompletableFuture.failedFuture(new TmException("The write set of " + rowHashes.length
                    + " rows and " + tableIds.length + " tables needs a " + frameBytes + "-byte COMMIT frame, above "
                    + RemoteTmConfig.MAX_FRAME_BYTES + "=" + config.maxFrameBytes() + "; split the transaction,"
                    + " or raise the limit on client and server (" + TmServerConfig.MAX_FRAME_BYTES + ")"));
        }
        // Sorted for the TM's conflict table and deduplicated here, on the caller's thread, so the TM only checks
        // the order; a new array, so the caller may reuse its own at once.
        long[] rows = ConflictKeys.inTableOrder(rowHashes);
        long[] tables = copy ? tableIds.clone() : tableIds;
        return send(id -> new Message.Commit(id, txId, conflictsSince, rows, tables)).thenApply(RemoteTransactionManager::decision);
    }

    /** Sends a request on a pooled connection; resends once, on a fresh connection, if it was never sent. */
    private CompletableFuture<Reply> send(LongFunction<Message.Request> request) {
        return attempt(request).exceptionallyCompose(failure -> Failures.unwrap(failure) instanceof NotSentException
                ? onControlThread(() -> attempt(request))
                : CompletableFuture.failedFuture(failure));
    }

    private CompletableFuture<Reply> attempt(LongFunction<Message.Request> request) {
        if (closed) {
            return CompletableFuture.failedFuture(new TmException(CLOSED));
        }
        return pool.acquire().thenCompose(connection -> connection.call(request.apply(requestIds.incrementAndGet()))
                .thenApply(response -> new Reply(connection, response)));
    }

    /**
     * A pending-status question that got no answer: UNKNOWN if its budget ran out (the connection is then skipped
     * by later questions until it answers something) or it was never sent; any other failure stays one.
     */
    private static PendingStatus unanswered(ClientConnection connection, Throwable failure) {
        Throwable cause = Failures.unwrap(failure);
        if (cause instanceof TimeoutException) {
            connection.markOverdue();
            return PendingStatus.unknown();
        }
        if (cause instanceof NotSentException) {
            return PendingStatus.unknown();
        }
        throw failure instanceof CompletionException wrapped ? wrapped : new CompletionException(cause);
    }

    /**
     * Reconnects empty or broken slots on the control thread, where waiting for discovery holds up no caller; a
     * pending-status question that found no connection asks for it and does not wait.
     */
    private void reconnectInBackground() {
        if (closed || !reconnecting.compareAndSet(false, true)) {
            return;
        }
        try {
            control.execute(() -> {
                try {
                    pool.connectIdleSlots();
                } finally {
                    reconnecting.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            reconnecting.set(false);
        }
    }

    /** Runs {@code step} on the control thread: it may call the resolver, which may block. */
    private <T> CompletableFuture<T> onControlThread(Supplier<CompletableFuture<T>> step) {
        try {
            return CompletableFuture.supplyAsync(step, control).thenCompose(next -> next);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new TmException(closed ? CLOSED
                    : "the TM client is overloaded with reconnects; retry"));
        }
    }

    private void primaryChanged() {
        if (closed) {
            return;
        }
        try {
            control.execute(() -> pool.refresh("the TM primary changed"));
        } catch (RejectedExecutionException e) {
            LOG.debug("Ignoring a TM primary change: the client is closing or already refreshing");
        }
    }

    /**
     * Waits for an answer. A caller that is the only one waiting first polls for up to the spin window, yielding
     * the CPU between polls: an answer that comes within it costs no sleep and no wake-up (tens of microseconds on
     * a virtual machine). With more callers waiting they sleep at once, so polling never competes with the I/O
     * threads for the CPU.
     */
    private <T> T await(CompletableFuture<T> future, String what) throws TmException {
        if (!future.isDone() && spinNanos > 0 && spinning.compareAndSet(false, true)) {
            try {
                long end = System.nanoTime() + spinNanos;
                while (!future.isDone() && System.nanoTime() - end < 0) {
                    Thread.yield();
                }
            } finally {
                spinning.set(false);
            }
        }
        try {
            return future.get(maxWaitMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = Failures.unwrap(e.getCause());
            // A new exception, so the caller's stack shows up next to the I/O thread's.
            throw cause instanceof TmException ? new TmException(cause.getMessage(), cause)
                    : new TmException(what + " failed unexpectedly: " + Failures.describe(cause), cause);
        } catch (TimeoutException e) {
            throw new TmException("No answer to " + what + " within " + maxWaitMs + " ms; its outcome is unknown",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TmException("Interrupted while waiting for the TM to answer " + what
                    + "; its outcome is unknown", e);
        }
    }

    private static long timestamp(Reply reply, String what) {
        if (reply.response() instanceof Message.Timestamp ts) {
            return ts.timestamp();
        }
        throw new CompletionException(unexpected(reply, what, MessageType.TIMESTAMP));
    }

    private static CommitDecision decision(Reply reply) {
        Message.Response response = reply.response();
        if (response instanceof Message.Committed committed) {
            return CommitDecision.committed(committed.commitTimestamp());
        }
        if (response instanceof Message.Aborted aborted) {
            return CommitDecision.aborted(aborted.reason());
        }
        throw new CompletionException(unexpected(reply, "COMMIT", MessageType.COMMITTED));
    }

    /**
     * The answer of a STATUS reply, or UNKNOWN if it comes from a primary of an older epoch than the newest one the
     * resolver reported: a deposed primary cannot vouch for a reader of its successor (its connection is closed).
     */
    private PendingStatus pendingStatus(Reply reply) {
        if (!(reply.response() instanceof Message.Status status)) {
            throw new CompletionException(unexpected(reply, "PENDING_STATUS", MessageType.STATUS));
        }
        TmEndpoint from = reply.connection().endpoint();
        long floor = pool.epochFloor();
        if (from.epoch() < floor) {
            reply.connection().close("the TM at " + from.address() + " serves epoch " + from.epoch()
                    + ", older than the current primary's epoch " + floor + ", so it is a deposed primary");
            return PendingStatus.unknown();
        }
        return status.toPendingStatus();
    }

    private static TmException unexpected(Reply reply, String what, MessageType expected) {
        String tm = "the TM at " + reply.connection().endpoint().address();
        if (reply.response() instanceof Message.ErrorReply error) {
            return new TmException(what + " failed at " + tm + ": " + error.message());
        }
        return new TmException("Protocol error: " + tm + " answered " + what + " with " + reply.response().type()
                + " instead of " + expected + "; do client and server versions match?");
    }

    /** An answer and the connection it came on (BEGIN needs the latter to close a deposed primary's channel). */
    private record Reply(ClientConnection connection, Message.Response response) {
    }
}
