package io.phoenixtxn.tm.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.BatchingTransactionManager;
import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.ConflictKeys;
import io.phoenixtxn.tm.TmException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The TM server's pipeline for the hot requests (FAST'17 sec. 5): a connection's event loop reads a batch
 * ({@link RequestBatch}), this decides it and writes every answer into one buffer, flushed once. The BEGINs of a
 * batch share one timestamp-oracle step; its NEW_TIMESTAMPs (region servers' bare timestamps) are drawn after them,
 * in request order, and open no transaction. When nothing would make the decisions wait
 * ({@link BatchingTransactionManager#decidesWithoutWaiting}) they are made right on the event loop: no thread hop,
 * so as few threads as there are I/O threads decide; otherwise (a fence being persisted, a timestamp reservation to
 * extend: ZooKeeper round trips under HA) the batch goes to a worker, so an event loop never waits on storage.
 * Nothing is allocated per request but the reply bytes (and error texts).
 */
final class BatchDecider {
    private static final Logger LOG = LoggerFactory.getLogger(BatchDecider.class);
    /** TIMESTAMP, COMMITTED and DONE frames are at most this long (length, type, id, one long). */
    private static final int REPLY_BYTES = Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 8;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final BatchingTransactionManager tm;
    private final Executor workers;

    BatchDecider(BatchingTransactionManager tm, Executor workers) {
        this.tm = tm;
        this.workers = workers;
    }

    /**
     * Decides {@code batch} and writes its answers; true if it was decided here (the caller may reuse the batch),
     * false if a worker took it over (the caller must start a new one).
     */
    boolean decide(ChannelHandlerContext ctx, RequestBatch batch) {
        if (tm.decidesWithoutWaiting(batch.begins + batch.timestamps + batch.commits)) {
            ctx.write(decideAll(ctx, batch));
            ctx.flush();
            return true;
        }
        try {
            workers.execute(() -> ctx.writeAndFlush(decideAll(ctx, batch)));
        } catch (RejectedExecutionException e) {
            ByteBuf out = ctx.alloc().ioBuffer(batch.size * 64);
            for (int i = 0; i < batch.size; i++) {
                WireCodec.write(new Message.ErrorReply(batch.requestIds[i], "the TM server is overloaded or"
                        + " shutting down; retry with backoff"), out);
            }
            ctx.writeAndFlush(out);
        }
        return false;
    }

    /** Every answer of the batch, in one buffer. */
    private ByteBuf decideAll(ChannelHandlerContext ctx, RequestBatch batch) {
        Scratch scratch = SCRATCH.get();
        ByteBuf out = ctx.alloc().ioBuffer(batch.size * REPLY_BYTES);
        String beginError = null;
        if (batch.begins > 0) {
            long[] starts = scratch.starts(batch.begins);
            try {
                tm.begin(batch.begins, starts, 0);
            } catch (TmException | RuntimeException e) {
                beginError = describe("BEGIN", e);
            }
        }
        int nextBegin = 0;
        for (int i = 0; i < batch.size; i++) {
            long id = batch.requestIds[i];
            switch (batch.types[i]) {
                case BEGIN:
                    if (beginError == null) {
                        frame(out, MessageType.TIMESTAMP, id).writeLong(scratch.starts[nextBegin++]);
                    } else {
                        WireCodec.write(new Message.ErrorReply(id, beginError), out);
                    }
                    break;
                case NEW_TIMESTAMP:
                    // Drawn here, after the batch's BEGINs: above every timestamp answered before it on this
                    // connection. Not a begin: it registers no open transaction (the GC horizon may pass it).
                    try {
                        long ts = tm.timestamp(); // before the frame's header: a failure writes an error frame only
                        frame(out, MessageType.TIMESTAMP, id).writeLong(ts);
                    } catch (TmException | RuntimeException e) {
                        WireCodec.write(new Message.ErrorReply(id, describe("NEW_TIMESTAMP", e)), out);
                    }
                    break;
                case COMMIT:
                    commit(batch, i, scratch.keys, out);
                    break;
                case FINISHED:
                    try {
                        tm.finished(batch.longs, batch.firstLong[i], batch.firstLong[i] + batch.rowCount[i]);
                        frame(out, MessageType.DONE, id);
                    } catch (TmException | RuntimeException e) {
                        WireCodec.write(new Message.ErrorReply(id, describe("FINISHED", e)), out);
                    }
                    break;
                default:
                    throw new IllegalStateException(batch.types[i] + " is not decided in batches");
            }
        }
        return out;
    }

    private void commit(RequestBatch batch, int i, ConflictKeys keys, ByteBuf out) {
        long id = batch.requestIds[i];
        int firstRow = batch.firstLong[i];
        int rows = batch.rowCount[i];
        int firstTable = batch.firstTable[i];
        try {
            keys.prepare(batch.longs, firstRow, firstRow + rows);
            long outcome = tm.commit(batch.txIds[i], batch.conflictsSince[i], rows, keys, batch.longs, firstTable,
                    firstTable + batch.tableCount[i]);
            if (outcome > 0) {
                frame(out, MessageType.COMMITTED, id).writeLong(outcome);
            } else {
                AbortReason reason = CommitDecision.reasonOf(outcome);
                frame(out, MessageType.ABORTED, id).writeByte(reason.wireCode());
            }
        } catch (TmException | RuntimeException e) {
            WireCodec.write(new Message.ErrorReply(id, describe("COMMIT", e)), out);
        }
    }

    /** Writes a frame's length, type and request id; the payload follows. */
    private static ByteBuf frame(ByteBuf out, MessageType type, long id) {
        int payload = type == MessageType.ABORTED ? 1 : type == MessageType.DONE ? 0 : 8;
        return out.writeInt(Protocol.HEADER_BYTES + payload).writeByte(type.code()).writeLong(id);
    }

    private static String describe(String what, Throwable failure) {
        if (failure instanceof TmException) {
            return failure.getMessage();
        }
        LOG.error("Transaction manager failed on {}", what, failure);
        return "internal error in the transaction manager (" + Failures.describe(failure) + "); see the TM server log";
    }

    /** Per deciding thread: the write-set buffer and the start timestamps of a batch's BEGINs. */
    private static final class Scratch {
        final ConflictKeys keys = new ConflictKeys();
        long[] starts = new long[64];

        long[] starts(int n) {
            if (starts.length < n) {
                starts = new long[Math.max(n, starts.length * 2)];
            }
            return starts;
        }
    }
}
