package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.ResolutionCounters;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Readers help: a version found committed only through the commit table gets its commit cell written, off the
 * read path (a region server handler must never block on a write), by one background thread per region server
 * with a bounded queue. Dropping a heal when the queue is full is harmless: the next reader resolves the version
 * through the commit table again, and the commit-table cleaner completes the transaction.
 */
public final class CommitCellHealer {
    private static final Logger LOG = LoggerFactory.getLogger(CommitCellHealer.class);
    private static final ThreadPoolExecutor EXECUTOR = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(10_000), r -> {
                Thread t = new Thread(r, "phoenix-txn-commit-cell-healer");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());

    private CommitCellHealer() {
    }

    /** Waits until every heal queued so far ran (tests, orderly shutdown). */
    public static boolean awaitQueued(long timeout, TimeUnit unit) throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        EXECUTOR.execute(done::countDown);
        return done.await(timeout, unit);
    }

    static void heal(Connection connection, TableName table, byte[] row, byte[] family, byte[] qualifier,
                     long version, long commitTs) {
        EXECUTOR.execute(() -> {
            try (Table t = connection.getTable(table)) {
                t.put(new Put(row).addColumn(family, OnDiskLayout.commitQualifier(qualifier), version,
                        OnDiskLayout.encodeCommitTimestamp(commitTs)));
                ResolutionCounters.commitCellHealed();
            } catch (Exception e) {
                LOG.debug("Could not heal a commit cell of {}; readers keep using the commit table", table, e);
            }
        });
    }
}
