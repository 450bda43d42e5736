package io.phoenixtxn.index;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Progress of one index population (the transaction that fills a new index from the snapshot at its fence): rows
 * scanned from the data table and rows written to the index, logged at intervals, exposed over JMX while it runs,
 * and its duration logged at the end. Thread-safe: Phoenix populates with parallel scans.
 */
public final class IndexBuildProgress implements IndexBuildMXBean {
    private static final Logger LOG = LoggerFactory.getLogger(IndexBuildProgress.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Map<Long, IndexBuildProgress> RUNNING = new ConcurrentHashMap<>();

    private final long fence;
    private final long startNanos = System.nanoTime();
    private final AtomicLong rowsScanned = new AtomicLong();
    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong nextLogNanos = new AtomicLong(startNanos + LOG_INTERVAL_NANOS);
    private volatile String indexTable = "?";
    private volatile long finishedNanos = -1;
    private volatile ObjectName registered;

    private IndexBuildProgress(long fence) {
        this.fence = fence;
    }

    /** The progress of the population running at {@code fence}, created on first use. */
    public static IndexBuildProgress forFence(long fence) {
        return RUNNING.computeIfAbsent(fence, IndexBuildProgress::new);
    }

    /** Populations running now, for tools and tests. */
    public static Map<Long, IndexBuildProgress> running() {
        return Map.copyOf(RUNNING);
    }

    public void scanned(long rows) {
        long total = rowsScanned.addAndGet(rows);
        maybeLog();
        IndexBuildHooks.current().afterRowsScanned(fence, total);
    }

    /** Index rows written to {@code table} (the first call names the index and registers the metric). */
    public void written(String table, long rows) {
        if (registered == null) {
            register(table);
        }
        rowsWritten.addAndGet(rows);
        maybeLog();
    }

    /** The population transaction ended (committed or not): logs the duration and drops the metric. */
    public void finish(boolean committed) {
        if (RUNNING.remove(fence, this)) {
            finishedNanos = System.nanoTime();
            LOG.info("Index population of {} at fence {} {} in {} ms: {} rows scanned, {} index rows written",
                    indexTable, fence, committed ? "finished" : "was abandoned", getElapsedMillis(),
                    rowsScanned.get(), rowsWritten.get());
            unregister();
        }
    }

    private void maybeLog() {
        long now = System.nanoTime();
        long due = nextLogNanos.get();
        if (now >= due && nextLogNanos.compareAndSet(due, now + LOG_INTERVAL_NANOS)) {
            LOG.info("Index population of {}: {} rows scanned, {} index rows written, {} s", indexTable,
                    rowsScanned.get(), rowsWritten.get(), TimeUnit.NANOSECONDS.toSeconds(now - startNanos));
        }
    }

    private synchronized void register(String table) {
        if (registered != null) {
            return;
        }
        indexTable = table;
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.phoenixtxn:type=IndexBuild,name=" + ObjectName.quote(table)
                    + ",fence=" + fence);
            server.registerMBean(this, name);
            registered = name;
        } catch (Exception e) {
            LOG.debug("Index build metric for {} not registered: {}", table, e.toString());
            registered = ObjectName.WILDCARD;
        }
    }

    private void unregister() {
        ObjectName name = registered;
        if (name != null && name != ObjectName.WILDCARD) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            } catch (Exception e) {
                LOG.debug("Index build metric {} not unregistered: {}", name, e.toString());
            }
        }
    }

    @Override
    public String getIndexTable() {
        return indexTable;
    }

    @Override
    public long getFenceTimestamp() {
        return fence;
    }

    @Override
    public long getRowsScanned() {
        return rowsScanned.get();
    }

    @Override
    public long getRowsWritten() {
        return rowsWritten.get();
    }

    @Override
    public long getElapsedMillis() {
        long end = finishedNanos >= 0 ? finishedNanos : System.nanoTime();
        return TimeUnit.NANOSECONDS.toMillis(end - startNanos);
    }

    @Override
    public boolean isFinished() {
        return finishedNanos >= 0;
    }
}
