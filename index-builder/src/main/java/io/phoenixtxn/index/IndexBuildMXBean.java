package io.phoenixtxn.index;

/** JMX view of one index population ({@code io.phoenixtxn:type=IndexBuild,name=<index table>}). */
public interface IndexBuildMXBean {
    String getIndexTable();

    long getFenceTimestamp();

    long getRowsScanned();

    long getRowsWritten();

    long getElapsedMillis();

    boolean isFinished();
}
