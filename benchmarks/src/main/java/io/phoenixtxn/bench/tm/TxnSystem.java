package io.phoenixtxn.bench.tm;

import io.phoenixtxn.tm.TransactionManager;

/**
 * A transaction system as the closed-loop driver ({@link TmDriver}) sees it: begin, commit a write set of row
 * hashes, and say which transactions ended. Implementations are called from many threads at once.
 */
public interface TxnSystem extends AutoCloseable {

    /** A start timestamp. */
    long begin() throws Exception;

    /** True if the transaction committed, false if it aborted. */
    boolean commit(long txId, long[] rows) throws Exception;

    /**
     * The first {@code n} ids of {@code txIds} ended on the client (our TM keeps the GC horizon for open
     * transactions; clients tell it in batches). The array is reused by the caller afterwards.
     */
    default void finished(long[] txIds, int n) throws Exception {
    }

    /** A short name for reports. */
    String name();

    @Override
    default void close() throws Exception {
    }

    /** Our TM (in process or its network client), every transaction writing one table. */
    static TxnSystem of(TransactionManager tm, String name) {
        long[] tables = {0x7AB1EL};
        return new TxnSystem() {
            @Override
            public long begin() throws Exception {
                return tm.begin();
            }

            @Override
            public boolean commit(long txId, long[] rows) throws Exception {
                return tm.commit(txId, rows, tables).isCommitted();
            }

            @Override
            public void finished(long[] txIds, int n) throws Exception {
                tm.finished(n == txIds.length ? txIds : java.util.Arrays.copyOf(txIds, n));
            }

            @Override
            public String name() {
                return name;
            }
        };
    }
}
