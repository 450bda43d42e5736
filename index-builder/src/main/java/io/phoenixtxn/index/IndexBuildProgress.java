package io.phoenixtxn.index;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Progress of one index population (the transaction that fills a new index from the snapshot at its fence): rows
 * scanned from the data table and index rows written, and key ranges done out of the ranges (regions cut at guideposts) when
 * the population runs on the region servers ({@link RegionServerPopulation}); logged every 10 s, exposed over JMX from
 * the fence on, and the duration logged at the end. Where the population falls back to Phoenix's own pass (a
 * client-side UPSERT SELECT), the client counts rows as they pass; with
 * {@code phoenix.client.enable.server.upsert.select=true} that pass runs on the region servers and only the duration
 * is known here. Thread-safe: populations run parallel scans.
 */
public final class IndexBuildProgress implements IndexBuildMXBean {
    private static final Logger LOG = LoggerFactory.getLogger(IndexBuildProgress.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Map<Long, IndexBuildProgress> RUNNING = new ConcurrentHashMap<>();

    private final long fence;
    private final long startNanos = System.nanoTime();
    private final AtomicLong rowsScanned = new AtomicLong();
    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong rangesDone = new AtomicLong();
    private volatile int regionsTotal;
    private volatile int rangesTotal;
    private volatile boolean onRegionServers;
    private volatile boolean populatedOnRegionServers;
    private final AtomicLong nextLogNanos = new AtomicLong(startNanos + LOG_INTERVAL_NANOS);
    private final String dataTable;
    private volatile String indexTable = "?";
    private volatile long finishedNanos = -1;
    private volatile ObjectName registered;

    private IndexBuildProgress(long fence, String dataTable) {
        this.fence = fence;
        this.dataTable = dataTable;
    }

    /** The progress of the population of an index on {@code dataTable} at {@code fence}, created on first use. */
    public static IndexBuildProgress forFence(long fence, String dataTable) {
        return RUNNING.computeIfAbsent(fence, f -> {
            IndexBuildProgress p = new IndexBuildProgress(f, dataTable);
            p.registered = Jmx.register(p, "io.phoenixtxn:type=IndexBuild,table="
                    + ObjectName.quote(dataTable) + ",fence=" + f);
            return p;
        });
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

    /** Index rows written to {@code table} by a population running on the client. */
    public void written(String table, long rows) {
        indexTable = table;
        rowsWritten.addAndGet(rows);
        maybeLog();
    }

    /**
     * The population runs on the region servers: one scan per key range, {@code ranges} of them over the
     * {@code regions} there are now.
     */
    public void onRegionServers(String indexTables, int regions, int ranges) {
        indexTable = indexTables;
        regionsTotal = regions;
        rangesTotal = ranges;
        onRegionServers = true;
    }

    /** The region servers could not populate: Phoenix's pass through the client does, and counts here. */
    void throughTheClient() {
        onRegionServers = false;
        regionsTotal = 0;
        rangesTotal = 0;
        rangesDone.set(0);
        rowsScanned.set(0);
        rowsWritten.set(0);
    }

    /** A page of a region-server population: rows scanned and index rows written there. */
    void page(long scanned, long written) {
        rowsWritten.addAndGet(written);
        scanned(scanned);
    }

    /** Every region is populated on the region servers: Phoenix's own pass has nothing left to do. */
    void populatedOnRegionServers() {
        populatedOnRegionServers = true;
    }

    /** Whether the region servers populated the index (the provider then answers Phoenix's pass with no rows). */
    public boolean isPopulatedOnRegionServers() {
        return populatedOnRegionServers;
    }

    /** One key range is populated. */
    void rangeDone() {
        rangesDone.incrementAndGet();
        maybeLog();
    }

    /** The population transaction ended (committed or not): logs the duration and drops the metric. */
    public void finish(boolean committed) {
        if (RUNNING.remove(fence, this)) {
            finishedNanos = System.nanoTime();
            String rows = !onRegionServers && rowsScanned.get() == 0 && rowsWritten.get() == 0
                    ? "no rows counted on this client (empty table, or populated by a server-side UPSERT SELECT)"
                    : rowsScanned.get() + " rows scanned, " + rowsWritten.get() + " index rows written";
            LOG.info("Index population of {} on {} at fence {} {} in {} ms: {}{}", indexTable, dataTable, fence,
                    committed ? "finished" : "was abandoned", getElapsedMillis(), rows,
                    onRegionServers ? ", on the region servers (" + rangesDone.get() + " of " + rangesTotal
                            + " ranges, " + regionsTotal + " regions)" : "");
            unregister();
        }
    }

    private void maybeLog() {
        long now = System.nanoTime();
        long due = nextLogNanos.get();
        if (now >= due && nextLogNanos.compareAndSet(due, now + LOG_INTERVAL_NANOS)) {
            LOG.info("Index population of {} on {}: {} rows scanned, {} index rows written{}, {} s", indexTable,
                    dataTable, rowsScanned.get(), rowsWritten.get(), onRegionServers ? ", ranges " + rangesDone.get()
                            + " of " + rangesTotal + " done" : "", TimeUnit.NANOSECONDS.toSeconds(now - startNanos));
        }
    }

    private synchronized void unregister() {
        Jmx.unregister(registered);
    }

    @Override
    public String getDataTable() {
        return dataTable;
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
    public int getRegionsTotal() {
        return regionsTotal;
    }

    @Override
    public int getRangesTotal() {
        return rangesTotal;
    }

    @Override
    public long getRangesDone() {
        return rangesDone.get();
    }

    @Override
    public boolean isOnRegionServers() {
        return onRegionServers;
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

    /** Registration with the platform MBean server; a metric that cannot register is logged, never fatal. */
    private static final class Jmx {
        private Jmx() {
        }

        static ObjectName register(Object bean, String name) {
            try {
                ObjectName objectName = new ObjectName(name);
                java.lang.management.ManagementFactory.getPlatformMBeanServer().registerMBean(bean, objectName);
                return objectName;
            } catch (Exception e) {
                LOG.debug("Metric {} not registered: {}", name, e.toString());
                return ObjectName.WILDCARD;
            }
        }

        static void unregister(ObjectName name) {
            if (name != null && name != ObjectName.WILDCARD) {
                try {
                    java.lang.management.ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
                } catch (Exception e) {
                    LOG.debug("Metric {} not unregistered: {}", name, e.toString());
                }
            }
        }
    }
}
