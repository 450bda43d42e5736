package io.phoenixtxn.client;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.apache.hadoop.hbase.client.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Open transactions are renewed whatever the client's other background work does: a commit-table cleaning pass
 * that takes longer than the transaction lease (here: held inside the commit table's scan) must not let a reader's
 * transaction expire. Before the renewals had a thread of their own they waited behind such a pass, and a long
 * reader failed as "snapshot too old" (bin/bench-index's verification after a live build).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TxnClientLeaseRenewalTest {
    private static final long LEASE_MS = 600;

    private final TransactionManagerCore core = TransactionManagerCore.startInMemory(TmConfig.defaults()
            .withConflictEntries(1 << 10).withTransactionLease(LEASE_MS, 60_000));
    private final CountDownLatch cleanerInside = new CountDownLatch(1);
    private final CountDownLatch releaseCleaner = new CountDownLatch(1);
    private TxnClient client;

    @AfterEach
    void close() {
        releaseCleaner.countDown();
        if (client != null) {
            client.close();
        }
        core.close();
    }

    /** The in-memory commit table, except that a cleaning pass's scan holds until released. */
    private CommitTable cleaningHeldCommitTable() {
        InMemoryCommitTable entries = new InMemoryCommitTable();
        return (CommitTable) Proxy.newProxyInstance(CommitTable.class.getClassLoader(),
                new Class<?>[] {CommitTable.class}, (proxy, method, args) -> {
                    if (method.getName().equals("committedBefore")) {
                        cleanerInside.countDown();
                        releaseCleaner.await();
                    }
                    try {
                        return method.invoke(entries, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static Connection noHBase() {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aLongCleaningPassDoesNotLetOpenTransactionsExpire() throws Exception {
        TxnClientConfig config = TxnClientConfig.defaults()
                .withTransactionLeaseMs(LEASE_MS)
                .withKeepAliveIntervalMs(LEASE_MS / 4)
                .withCleanerIntervalMs(20);
        client = new TxnClient(noHBase(), () -> core, config, cleaningHeldCommitTable(), new TxnClientMetrics(60));
        assertTrue(cleanerInside.await(10, TimeUnit.SECONDS), "a cleaning pass started");
        Transaction reader = client.begin();
        // Three leases pass while the cleaning pass holds (the reader's lease runs out unless it is renewed).
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * LEASE_MS);
        while (System.nanoTime() < until) {
            assertFalse(reader.isExpired(), "the reader expired while a cleaning pass ran");
            Thread.sleep(20);
        }
        assertFalse(reader.isExpired());
        client.commit(reader); // read-only: ends it at the TM, which still held it
    }
}
