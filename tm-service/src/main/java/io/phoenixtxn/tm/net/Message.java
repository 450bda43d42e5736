package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.AbortReason;
import io.phoenixtxn.tm.PendingStatus;

/** The messages of the TM protocol, decoded. Requests flow client to server, responses back. */
sealed interface Message {

    long requestId();

    MessageType type();

    /** Client to server. */
    sealed interface Request extends Message {
    }

    /** Server to client. */
    sealed interface Response extends Message {
    }

    record Hello(long requestId, int magic, int version) implements Request {
        @Override
        public MessageType type() {
            return MessageType.HELLO;
        }
    }

    record Begin(long requestId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.BEGIN;
        }
    }

    /** Arrays are shared, not copied: a message is built right before it is encoded or right after decoding. */
    record Commit(long requestId, long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            implements Request {
        @Override
        public MessageType type() {
            return MessageType.COMMIT;
        }
    }

    record Fence(long requestId, long tableId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.FENCE;
        }
    }

    /** Begins a bulk load holding these tables ({@code TransactionManager.beginBulkLoad}). */
    record BulkLoad(long requestId, long[] tableIds) implements Request {
        @Override
        public MessageType type() {
            return MessageType.BULK_LOAD;
        }
    }

    record GetLowWaterMark(long requestId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.LOW_WATER_MARK;
        }
    }

    record GetPendingStatus(long requestId, long writerTxId, long readerTxId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.PENDING_STATUS;
        }
    }

    /** Transactions ended on the client (a {@link Done} acknowledges; the client does not wait for it). */
    record Finished(long requestId, long[] txIds) implements Request {
        @Override
        public MessageType type() {
            return MessageType.FINISHED;
        }
    }

    record KeepAlive(long requestId, long[] txIds) implements Request {
        @Override
        public MessageType type() {
            return MessageType.KEEP_ALIVE;
        }
    }

    record GetHorizon(long requestId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.HORIZON;
        }
    }

    /** A bare timestamp: no transaction is opened (region servers' version clocks). */
    record GetTimestamp(long requestId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.NEW_TIMESTAMP;
        }
    }

    /** An operator's question: what this TM is doing (protocol version 5). */
    record GetStatusReport(long requestId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.STATUS_REPORT;
        }
    }

    record Ping(long requestId) implements Request {
        @Override
        public MessageType type() {
            return MessageType.PING;
        }
    }

    record HelloOk(long requestId, int version, int idleTimeoutSeconds) implements Response {
        @Override
        public MessageType type() {
            return MessageType.HELLO_OK;
        }
    }

    record Timestamp(long requestId, long timestamp) implements Response {
        @Override
        public MessageType type() {
            return MessageType.TIMESTAMP;
        }
    }

    record Committed(long requestId, long commitTimestamp) implements Response {
        @Override
        public MessageType type() {
            return MessageType.COMMITTED;
        }
    }

    /** Only the TM's own reasons travel: client-side outcomes (a force-abort by a reader) have no wire code. */
    record Aborted(long requestId, AbortReason reason) implements Response {
        public Aborted {
            if (reason.wireCode() == AbortReason.NOT_A_TM_ANSWER) {
                throw new IllegalArgumentException(reason + " is a client-side outcome, not a TM answer: it has no"
                        + " code in the TM protocol");
            }
        }

        @Override
        public MessageType type() {
            return MessageType.ABORTED;
        }
    }

    record ErrorReply(long requestId, String message) implements Response {
        @Override
        public MessageType type() {
            return MessageType.ERROR;
        }
    }

    /** The TM's status as {@code key=value} lines ({@link io.phoenixtxn.tm.TmStatus}). */
    record Report(long requestId, String text) implements Response {
        @Override
        public MessageType type() {
            return MessageType.REPORT;
        }
    }

    record Pong(long requestId) implements Response {
        @Override
        public MessageType type() {
            return MessageType.PONG;
        }
    }

    record Done(long requestId) implements Response {
        @Override
        public MessageType type() {
            return MessageType.DONE;
        }
    }

    /** The transactions a KEEP_ALIVE named that the TM no longer holds (expired). */
    record TxIds(long requestId, long[] txIds) implements Response {
        @Override
        public MessageType type() {
            return MessageType.TXIDS;
        }
    }

    /** The GC horizon and the commit-point horizon; both -1 while the TM cannot tell. */
    record HorizonIs(long requestId, long gc, long commitPointSafe) implements Response {
        @Override
        public MessageType type() {
            return MessageType.HORIZON_IS;
        }
    }

    /** {@code commitTs} is meaningful for {@link PendingStatus.Kind#DECIDED} only (-1 otherwise). */
    record Status(long requestId, PendingStatus.Kind kind, long commitTs) implements Response {
        @Override
        public MessageType type() {
            return MessageType.STATUS;
        }

        PendingStatus toPendingStatus() {
            switch (kind) {
                case DECIDED:
                    return PendingStatus.decided(commitTs);
                case NOT_DECIDED:
                    return PendingStatus.notDecided();
                default:
                    return PendingStatus.unknown();
            }
        }
    }
}
