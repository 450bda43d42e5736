package io.phoenixtxn.index;

/**
 * JMX view of one index population as its client sees it ({@code io.phoenixtxn:type=IndexBuild,table=<data
 * table>,fence=<fence>}).
 */
public interface IndexBuildMXBean {
    String getDataTable();

    String getIndexTable();

    long getFenceTimestamp();

    long getRowsScanned();

    long getRowsWritten();

    /** Regions of the data table when a region-server population started (0 when the client populates). */
    int getRegionsTotal();

    /** Key ranges scanned in parallel: the regions at the start, cut at the table's guideposts (PopulationRanges). */
    int getRangesTotal();

    /** Key ranges fully populated on the region servers. */
    long getRangesDone();

    /** Whether the population runs on the region servers (else Phoenix's own pass through the client does). */
    boolean isOnRegionServers();

    long getElapsedMillis();

    boolean isFinished();
}
