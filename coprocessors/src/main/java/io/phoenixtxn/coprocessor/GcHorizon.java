package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The region server's GC horizon ({@link Horizon}), one per JVM like {@link RegionServerTm}: compactions collect
 * below it, and reads whose snapshot starts below it are refused ("snapshot too old"). A background thread asks the
 * TM that {@link RegionServerTm#current()} gives every {@code phoenix.txn.gc.horizon.refresh.ms} (reads and compactions
 * never wait for the TM); {@link HorizonTracker} keeps the maximum ever answered. Unknown until first fetched, and GC
 * with an unknown horizon keeps everything.
 */
public final class GcHorizon {
    private static final Logger LOG = LoggerFactory.getLogger(GcHorizon.class);
    private static final HorizonTracker TRACKER = new HorizonTracker(RegionServerTm::current);
    private static volatile ScheduledExecutorService refresher;

    private GcHorizon() {
    }

    /** Starts the background refresher with the region server's configuration (the first observer to start wins). */
    static void configure(Configuration conf) {
        if (refresher != null) {
            return;
        }
        synchronized (GcHorizon.class) {
            if (refresher == null) {
                long periodMs = GcConfig.from(conf::get).horizonRefreshMs();
                ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "phoenix-txn-gc-horizon");
                    t.setDaemon(true);
                    return t;
                });
                executor.scheduleWithFixedDelay(GcHorizon::refreshQuietly, 0, periodMs, TimeUnit.MILLISECONDS);
                refresher = executor;
            }
        }
    }

    /** A scheduled task that throws is never run again: nothing may escape. */
    private static void refreshQuietly() {
        try {
            refreshNow();
        } catch (Throwable t) {
            LOG.warn("GC horizon refresh failed; the region server keeps {}", current(), t);
        }
    }

    /** The horizon this region server knows; never blocks. */
    public static Horizon current() {
        return TRACKER.current();
    }

    /**
     * Asks the TM now, on the calling thread (the refresher; tests and tools that want the newest horizon without
     * waiting for the next period), and lets the invalid-marker janitor delete what the new horizon allows.
     */
    public static Horizon refreshNow() {
        Horizon horizon = TRACKER.refresh();
        InvalidMarkerJanitor.shared().deleteBelow(horizon.commitPointSafe());
        return horizon;
    }
}
