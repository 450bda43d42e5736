package io.phoenixtxn.tm.net;

import io.netty.channel.Channel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs requests against the {@link TransactionManager} on worker threads and writes the answers back: every request
 * of a TM that does not decide in batches, and the requests a {@link BatchDecider} does not take (fences, pending
 * status, keep-alives, horizons, low-water mark; a new request type lands here until it is given a batch path).
 *
 * <p>Why not on the event loop: the core's calls are usually microseconds, but some block. {@code begin} and
 * {@code commit} may hit a timestamp-epoch reservation (a ZooKeeper compare-and-set under HA), {@code fence}
 * persists to the fence store before it answers, and every {@code commit} waits on the fence lock while a fence is
 * being persisted. On an event loop any of these would stall every connection sharing that loop, including their
 * pings, and a long stall would idle-close healthy clients. A thread hop costs microseconds against a network round
 * trip, and flush consolidation in the pipeline batches the answers the workers write.
 *
 * <p>A pending-status question about a commit being decided waits for that decision (bounded, see
 * {@code DecisionLog}); it does so without a worker: its answer is written by whichever thread completes it.
 *
 * <p>The queue is bounded: an overloaded server answers ERROR at once instead of queueing without limit.
 */
final class RequestDispatcher implements AutoCloseable {
    static final int MAX_QUEUED_REQUESTS = 65_536;
    /** Open transactions a status report lists at most (oldest first); the count covers all of them. */
    static final int MAX_LISTED_TRANSACTIONS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);

    private final TransactionManager tm;
    private final ThreadPoolExecutor workers;
    private final BatchDecider batches;
    private final java.util.function.Supplier<String> serverFacts;

    RequestDispatcher(TransactionManager tm, int threads) {
        this(tm, threads, () -> "");
    }

    /** @param serverFacts {@code key=value} lines about the server itself, appended to every status report */
    RequestDispatcher(TransactionManager tm, int threads, java.util.function.Supplier<String> serverFacts) {
        this.tm = tm;
        this.serverFacts = serverFacts;
        this.workers = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(MAX_QUEUED_REQUESTS), new DefaultThreadFactory("phoenix-txn-tm-worker",
                true));
        this.batches = tm instanceof io.phoenixtxn.tm.BatchingTransactionManager batching
                ? new BatchDecider(batching, workers) : null;
    }

    /**
     * The pipeline for BEGIN, COMMIT and FINISHED, or null if this TM decides one request at a time (then every
     * request takes {@link #dispatch}).
     */
    BatchDecider batches() {
        return batches;
    }

    /** Requests and batches waiting for a worker thread (monitoring). */
    int queued() {
        return workers.getQueue().size();
    }

    /** Queues a request; its answer is written to {@code channel} (dropped if the channel closed meanwhile). */
    void dispatch(Channel channel, Message.Request request) {
        try {
            workers.execute(() -> respond(request).thenAccept(channel::writeAndFlush));
        } catch (RejectedExecutionException e) {
            channel.writeAndFlush(new Message.ErrorReply(request.requestId(), workers.isShutdown()
                    ? "the TM server is shutting down; retry against the new primary"
                    : "the TM server is overloaded (" + MAX_QUEUED_REQUESTS + " requests queued); retry with"
                    + " backoff, or add " + TmServerConfig.WORKER_THREADS));
        }
    }

    /** The answer to one request, now or (a pending-status question) once the TM knows; never fails. */
    private CompletableFuture<Message.Response> respond(Message.Request request) {
        if (!(request instanceof Message.GetPendingStatus query)) {
            return CompletableFuture.completedFuture(execute(request));
        }
        CompletableFuture<PendingStatus> status;
        try {
            status = tm.pendingStatusAsync(query.writerTxId(), query.readerTxId());
        } catch (RuntimeException e) {
            status = CompletableFuture.failedFuture(e);
        }
        return status.handle((answer, failure) -> failure == null
                ? new Message.Status(query.requestId(), answer.kind(), answer.commitTs())
                : errorReply(query, Failures.unwrap(failure)));
    }

    /** The answer to one request; a TM failure becomes an ERROR carrying its message. */
    private Message.Response execute(Message.Request request) {
        long id = request.requestId();
        try {
            if (request instanceof Message.Begin) {
                return new Message.Timestamp(id, tm.begin());
            } else if (request instanceof Message.Commit commit) {
                CommitDecision decision = tm.commit(commit.txId(), commit.conflictsSince(), commit.rowHashes(),
                        commit.tableIds());
                return decision.isCommitted() ? new Message.Committed(id, decision.commitTimestamp())
                        : new Message.Aborted(id, decision.abortReason());
            } else if (request instanceof Message.Fence fence) {
                return new Message.Timestamp(id, tm.fence(fence.tableId()));
            } else if (request instanceof Message.BulkLoad load) {
                return new Message.Timestamp(id, tm.beginBulkLoad(load.tableIds()));
            } else if (request instanceof Message.GetLowWaterMark) {
                return new Message.Timestamp(id, tm.lowWaterMark());
            } else if (request instanceof Message.Finished finished) {
                tm.finished(finished.txIds());
                return new Message.Done(id);
            } else if (request instanceof Message.KeepAlive keepAlive) {
                return new Message.TxIds(id, tm.keepAlive(keepAlive.txIds()));
            } else if (request instanceof Message.GetTimestamp) {
                return new Message.Timestamp(id, tm.timestamp());
            } else if (request instanceof Message.GetStatusReport) {
                return new Message.Report(id, statusReport());
            } else if (request instanceof Message.GetHorizon) {
                io.phoenixtxn.tm.Horizon horizon = tm.horizon();
                return new Message.HorizonIs(id, horizon.gc(), horizon.commitPointSafe());
            }
            throw new IllegalArgumentException(request.type() + " is answered by the connection, not the TM");
        } catch (TmException | RuntimeException e) {
            return errorReply(request, e);
        }
    }

    /** The TM's {@link io.phoenixtxn.tm.TmStatus} lines (a TM other than the core reports its class), then ours. */
    private String statusReport() {
        String tmLines = tm instanceof io.phoenixtxn.tm.TransactionManagerCore core
                ? core.status(MAX_LISTED_TRANSACTIONS).toText()
                : "tm=" + tm.getClass().getName() + "\n";
        return tmLines + "protocol.version=" + Protocol.VERSION + "\n" + serverFacts.get();
    }

    private static Message.ErrorReply errorReply(Message.Request request, Throwable failure) {
        long id = request.requestId();
        if (failure instanceof TmException) {
            return new Message.ErrorReply(id, failure.getMessage());
        }
        LOG.error("Transaction manager failed on {} request {}", request.type(), id, failure);
        return new Message.ErrorReply(id, "internal error in the transaction manager (" + Failures.describe(failure)
                + "); see the TM server log");
    }

    /** Stops taking requests; waits up to {@code timeoutMs} for running ones, then interrupts them. */
    @Override
    public void close() {
        close(TmServer.CLOSE_TIMEOUT_MS);
    }

    void close(long timeoutMs) {
        workers.shutdown();
        try {
            if (!workers.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
                LOG.warn("TM worker threads still busy after {} ms; interrupting them", timeoutMs);
                workers.shutdownNow();
                workers.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
