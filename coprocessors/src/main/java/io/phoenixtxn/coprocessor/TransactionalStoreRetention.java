package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;

import java.util.ArrayList;
import java.util.List;

/**
 * What a transactional store must keep, decided for every store scanner the region opens: reads, flushes, memstore
 * compactions and compactions. Invariant: no version a snapshot may still read is hidden or dropped by HBase's own
 * version or time-to-live pruning.
 *
 * <p>HBase's pruning knows nothing of commits. A family's VERSIONS counts tentative versions too, so with VERSIONS=1
 * (the HBase API's default) an open transaction's tentative version hides the committed one from readers and a
 * flush drops it for good. Omid keeps every version until its low-water-mark cleanup removes the obsolete ones
 * (FAST'17 sec. 5.3, "Garbage collection"); so do we. A TTL measures a cell's version as wall-clock milliseconds, but our versions are timestamps of
 * {@code TimestampLayout} (milliseconds x 10^6), which HBase reads as far in the future: HBase's TTL is inert today,
 * and still must not be allowed to expire a version the day it would not be. So this keeps every version in every
 * store scanner, whatever the family descriptor says.
 *
 * <p>Compaction-time garbage collection ({@link TransactionalGc}) does not narrow these options, since HBase's
 * pruning knows nothing of commits: it runs on top of the store scanner of each flush and compaction, which sees
 * every version thanks to this class, and decides with the commits and the GC horizon. It also applies the family's
 * TTL, to commit times.
 */
public class TransactionalStoreRetention {

    /** Store scanners of gets and scans: every version reaches the snapshot filter. */
    public void forRead(ScanOptions options) {
        keepEverything(options);
    }

    /** Flushes of the memstore, and in-memory (memstore) compactions: nothing is dropped on the way to disk. */
    public void forFlush(ScanOptions options) {
        keepEverything(options);
    }

    /** Minor and major compactions ({@code scanType} says whether delete markers are being dropped). */
    public void forCompaction(ScanType scanType, ScanOptions options) {
        keepEverything(options);
    }

    /**
     * The settings of {@code family} that this retention overrides, each described for an operator (setting, its
     * value, and what happens instead); empty when the descriptor already says what happens.
     */
    public List<String> overriddenSettings(ColumnFamilyDescriptor family) {
        List<String> overridden = new ArrayList<>(2);
        if (family.getMaxVersions() != Integer.MAX_VALUE) {
            overridden.add("VERSIONS=" + family.getMaxVersions() + " (every version is kept: a pending write must"
                    + " never hide or push out a committed version)");
        }
        // A TTL is not overridden: compaction-time GC applies it to commit times (TransactionalGc.expiredBelow).
        return overridden;
    }

    private static void keepEverything(ScanOptions options) {
        options.readAllVersions();
        options.setTTL(Long.MAX_VALUE); // ScanInfo's TTL is in ms; HBase itself uses Long.MAX_VALUE for FOREVER
    }
}
