package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.ResolutionCounters;
import org.apache.hadoop.hbase.metrics.BaseSourceImpl;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.apache.hadoop.metrics2.lib.Interns.info;

/**
 * The region server's phoenix-txn metrics, the HBase way: a {@link BaseSourceImpl} (HBase's metrics2 source base)
 * registered once per region-server JVM, so they appear in the region server's {@code /jmx} as
 * {@code Hadoop:service=HBase,name=RegionServer,sub=PhoenixTxn} and in every metrics2 sink HBase is configured with.
 *
 * <p>The values are not kept here: they are read, when JMX or a sink asks, from the process-wide counters the
 * read path and GC already keep ({@link ResolutionCounters}, {@link GcCounters}); nothing is counted twice.
 */
public final class RegionServerTxnMetrics extends BaseSourceImpl {
    public static final String NAME = "PhoenixTxn";
    public static final String CONTEXT = "regionserver";
    public static final String JMX_CONTEXT = "RegionServer,sub=" + NAME;
    private static final Logger LOG = LoggerFactory.getLogger(RegionServerTxnMetrics.class);

    static final MetricsInfo PENDING_RESOLVED = info("PendingVersionsResolved",
            "versions without a commit cell that readers resolved through the commit table, the TM or a force-abort");
    static final MetricsInfo STATUS_QUERIES = info("TmStatusQueries",
            "pending-writer status questions asked of the TM");
    static final MetricsInfo STATUS_UNKNOWN = info("TmStatusUnknown",
            "of those, answered UNKNOWN or not in time (readers then wait and may force-abort)");
    static final MetricsInfo WAITS = info("PendingWaits",
            "readers that waited for a pending writer's commit point (phoenix.txn.reader.pending.wait.ms)");
    static final MetricsInfo FORCE_ABORTS = info("ForceAborts",
            "pending writers a reader aborted with an invalid marker (their commits fail INVALIDATED)");
    static final MetricsInfo HEALED = info("CommitCellsHealed",
            "commit cells written by readers for versions found committed only in the commit table");
    static final MetricsInfo GC_RUNS = info("GcRuns", "flushes and compactions garbage-collected");
    static final MetricsInfo GC_CELLS_SCANNED = info("GcCellsScanned", "cells those read");
    static final MetricsInfo GC_CELLS_DROPPED = info("GcCellsDropped",
            "cells those dropped: overwritten, aborted, deleted and expired versions, with their commit cells");
    static final MetricsInfo GC_ROWS_STREAMED = info("GcRowsStreamed",
            "rows above phoenix.txn.gc.row.max.cells decided in two passes");
    static final MetricsInfo GC_ROWS_UNCHANGED = info("GcRowsUnchanged",
            "rows written unchanged for their size (a flush's above the row buffer, a compaction's above the"
                    + " streaming bound or whose first pass failed)");

    private static RegionServerTxnMetrics instance;

    private RegionServerTxnMetrics() {
        super(NAME, "phoenix-txn transactional reads and GC on this region server", CONTEXT, JMX_CONTEXT);
    }

    /**
     * Registers the source once per JVM (region observers call this when they start). A failure is logged, never
     * thrown: metrics must not keep a region from opening.
     */
    static synchronized void ensureRegistered() {
        if (instance != null) {
            return;
        }
        try {
            instance = new RegionServerTxnMetrics();
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("phoenix-txn region-server metrics are not exposed ({}); the counters still run", e.toString());
            instance = null;
        }
    }

    /** Whether this JVM's source is registered (tests). */
    static synchronized boolean registered() {
        return instance != null;
    }

    /** This JVM's registered source, or null (tests read it without JMX). */
    static synchronized RegionServerTxnMetrics source() {
        return instance;
    }

    @Override
    public void getMetrics(MetricsCollector collector, boolean all) {
        MetricsRecordBuilder record = collector.addRecord(metricsRegistry.info()).setContext(metricsContext);
        record.addCounter(PENDING_RESOLVED, ResolutionCounters.pendingVersionsResolved())
                .addCounter(STATUS_QUERIES, ResolutionCounters.statusQueries())
                .addCounter(STATUS_UNKNOWN, ResolutionCounters.statusUnknown())
                .addCounter(WAITS, ResolutionCounters.waits())
                .addCounter(FORCE_ABORTS, ResolutionCounters.forceAborts())
                .addCounter(HEALED, ResolutionCounters.commitCellsHealed())
                .addCounter(GC_RUNS, GcCounters.runs())
                .addCounter(GC_CELLS_SCANNED, GcCounters.cellsScanned())
                .addCounter(GC_CELLS_DROPPED, GcCounters.cellsDropped())
                .addCounter(GC_ROWS_STREAMED, GcCounters.rowsStreamed())
                .addCounter(GC_ROWS_UNCHANGED, GcCounters.rowsUnchanged());
        metricsRegistry.snapshot(record, all);
    }
}
