package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Deletes the invalid markers of writers whose cells compaction-time GC dropped, once they are below the
 * commit-point horizon: such a writer can no longer write a commit point, so its marker fences nothing, and readers
 * and GC take an absent entry below that horizon for "not committed" ({@code CommitResolver},
 * {@link GcStatusResolver}). A marker of a writer still at or above it (GC force-aborted it in this compaction) waits
 * here until a later horizon passes it. Off the critical path: one background thread per region server; errors are
 * logged and the marker stays (harmless: it only costs a commit-table row). Pending deletions are not durable: a
 * region server that stops forgets them, which leaves the same harmless rows.
 */
final class InvalidMarkerJanitor {
    private static final Logger LOG = LoggerFactory.getLogger(InvalidMarkerJanitor.class);
    /** Writers waiting for the horizon beyond this many are dropped (their markers stay). */
    private static final int MAX_PENDING = 1_000_000;
    private static final InvalidMarkerJanitor SHARED = new InvalidMarkerJanitor(new ThreadPoolExecutor(1, 1, 0,
            TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1_000), r -> {
                Thread t = new Thread(r, "phoenix-txn-gc-marker-janitor");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy()));

    private final Executor executor;
    private final NavigableSet<Long> pending = new ConcurrentSkipListSet<>();
    private volatile CommitTable commitTable;

    InvalidMarkerJanitor(Executor executor) {
        this.executor = executor;
    }

    static InvalidMarkerJanitor shared() {
        return SHARED;
    }

    /** Writers whose cells a compaction dropped as invalidated; their markers go once below {@code commitPointSafe}. */
    void offer(CommitTable table, Collection<Long> writers, long commitPointSafe) {
        if (writers.isEmpty()) {
            return;
        }
        commitTable = table;
        for (Long writer : writers) {
            if (pending.size() >= MAX_PENDING) {
                LOG.warn("{} invalid markers already wait for the commit-point horizon; keeping the rest", MAX_PENDING);
                break;
            }
            pending.add(writer);
        }
        deleteBelow(commitPointSafe);
    }

    /** Deletes, in the background, the pending markers of writers below {@code commitPointSafe}. */
    void deleteBelow(long commitPointSafe) {
        CommitTable table = commitTable;
        if (table == null || commitPointSafe < 0 || pending.isEmpty() || pending.first() >= commitPointSafe) {
            return;
        }
        List<Long> due = new ArrayList<>();
        for (Long writer = pending.pollFirst(); writer != null; writer = pending.pollFirst()) {
            if (writer >= commitPointSafe) {
                pending.add(writer);
                break;
            }
            due.add(writer);
        }
        executor.execute(() -> delete(table, due));
    }

    int pendingCount() {
        return pending.size();
    }

    private static void delete(CommitTable table, List<Long> writers) {
        int failed = 0;
        Exception first = null;
        for (long writer : writers) {
            try {
                table.delete(writer);
            } catch (Exception e) {
                failed++;
                first = first == null ? e : first;
            }
        }
        if (failed > 0) {
            LOG.warn("Could not delete {} of {} invalid markers of garbage-collected writers; they stay (harmless)",
                    failed, writers.size(), first);
        } else {
            LOG.debug("Deleted the invalid markers of {} garbage-collected writers", writers.size());
        }
    }
}
