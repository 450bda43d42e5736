package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;

/** A TM that cannot be used right now: every call fails with the same explanation, nothing is decided. */
final class UnavailableTransactionManager implements TransactionManager {
    private final String reason;

    UnavailableTransactionManager(String reason) {
        this.reason = reason;
    }

    @Override
    public long begin() throws TmException {
        throw new TmException(reason);
    }

    @Override
    public CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            throws TmException {
        throw new TmException(reason);
    }

    @Override
    public long timestamp() throws TmException {
        throw new TmException(reason);
    }

    @Override
    public long fence(long tableId) throws TmException {
        throw new TmException(reason);
    }

    @Override
    public long beginBulkLoad(long[] tableIds) throws TmException {
        throw new TmException(reason);
    }

    @Override
    public PendingStatus pendingStatus(long writerTxId, long readerTxId) throws TmException {
        throw new TmException(reason);
    }

    @Override
    public long lowWaterMark() throws TmException {
        throw new TmException(reason);
    }

    @Override
    public void close() {
        // nothing held
    }

    @Override
    public String toString() {
        return "unavailable TM (" + reason + ")";
    }
}
