package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.discovery.BackgroundTmLocator;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.conf.Configuration;

/**
 * The TM a region server asks about pending writers ({@code PendingStatus}): the region-server flavour of the one TM
 * locator ({@link TmLocator#inBackground}), one per JVM. It never starts a TM and never blocks an RPC handler: it
 * connects in the background and answers null until then (or without any TM), and readers fall back to the Omid LL
 * rule (wait, then force-abort), which is always correct.
 */
final class RegionServerTm {
    private static volatile BackgroundTmLocator locator;

    private RegionServerTm() {
    }

    /** Starts looking for the TM with the region server's configuration (the first observer to start wins). */
    static void configure(Configuration conf) {
        if (locator == null) {
            synchronized (RegionServerTm.class) {
                if (locator == null) {
                    locator = TmLocator.inBackground(conf::get);
                }
            }
        }
    }

    static TransactionManager current() {
        BackgroundTmLocator l = locator;
        return l == null ? null : l.get();
    }
}
