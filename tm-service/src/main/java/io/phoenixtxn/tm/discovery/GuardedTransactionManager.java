package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;

/**
 * The JVM's embedded TM as one client uses it on a cluster with a ZooKeeper quorum: every call needs the client's
 * {@link EmbeddedGuard} held before it runs and still held when its answer is ready, like a primary's lease (FAST'17
 * sec. 6). An answer produced while the guard was lost is withheld as a {@link TmException}: for a commit that is
 * safe, because the client's commit-table write, not the TM's decision, is the commit point (Omid LL), and a client
 * that gets no decision rolls back.
 */
final class GuardedTransactionManager implements TransactionManager {
    private final TmConfig config;
    private final EmbeddedGuard guard;

    GuardedTransactionManager(TmConfig config, EmbeddedGuard guard) {
        this.config = config;
        this.guard = guard;
    }

    @Override
    public long begin() throws TmException {
        guard.ensureHeld();
        long ts = tm().begin();
        guard.confirm("BEGIN");
        return ts;
    }

    @Override
    public CommitDecision commit(long txId, long conflictsSince, long[] rowHashes, long[] tableIds)
            throws TmException {
        guard.ensureHeld();
        CommitDecision decision = tm().commit(txId, conflictsSince, rowHashes, tableIds);
        guard.confirm("The COMMIT decision of transaction " + txId);
        return decision;
    }

    @Override
    public long timestamp() throws TmException {
        guard.ensureHeld();
        long ts = tm().timestamp();
        guard.confirm("NEW_TIMESTAMP");
        return ts;
    }

    @Override
    public long fence(long tableId) throws TmException {
        guard.ensureHeld();
        long fence = tm().fence(tableId);
        guard.confirm("FENCE");
        return fence;
    }

    @Override
    public long beginBulkLoad(long[] tableIds) throws TmException {
        guard.ensureHeld();
        long txId = tm().beginBulkLoad(tableIds);
        guard.confirm("BULK_LOAD");
        return txId;
    }

    @Override
    public PendingStatus pendingStatus(long writerTxId, long readerTxId) throws TmException {
        guard.ensureHeld();
        PendingStatus status = tm().pendingStatus(writerTxId, readerTxId);
        guard.confirm("PENDING_STATUS");
        return status;
    }

    @Override
    public long lowWaterMark() throws TmException {
        guard.ensureHeld();
        long lwm = tm().lowWaterMark();
        guard.confirm("LOW_WATER_MARK");
        return lwm;
    }

    @Override
    public void finished(long[] txIds) throws TmException {
        guard.ensureHeld();
        tm().finished(txIds);
    }

    @Override
    public long[] keepAlive(long[] txIds) throws TmException {
        guard.ensureHeld();
        long[] expired = tm().keepAlive(txIds);
        guard.confirm("KEEP_ALIVE");
        return expired;
    }

    @Override
    public io.phoenixtxn.tm.Horizon horizon() throws TmException {
        guard.ensureHeld();
        io.phoenixtxn.tm.Horizon horizon = tm().horizon();
        guard.confirm("HORIZON");
        return horizon;
    }

    /** The JVM's TM outlives this client's use of it. */
    @Override
    public void close() {
    }

    /** Looked up per call: a TM restarted in this JVM ({@link EmbeddedTm#shutdown}) is picked up. */
    private TransactionManager tm() {
        return EmbeddedTm.shared(config);
    }

    @Override
    public String toString() {
        return "embedded TM guarded by " + guard.marker();
    }
}
