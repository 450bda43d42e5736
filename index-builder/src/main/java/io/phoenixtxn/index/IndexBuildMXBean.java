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

    long getElapsedMillis();

    boolean isFinished();
}
