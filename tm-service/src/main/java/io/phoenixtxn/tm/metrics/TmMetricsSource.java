package io.phoenixtxn.tm.metrics;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.TmServer;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;

import java.util.function.Supplier;

import static org.apache.hadoop.metrics2.lib.Interns.info;

/**
 * The TM process as one metrics2 source ({@value TmMetrics#RECORD}): the hot-path counters of {@link TmMetrics},
 * and gauges read when a sink or JMX asks, from the core and server of the current primary term (none while this
 * process is a backup: then only {@code Primary=0} and the counters are reported).
 *
 * <p>Reading a gauge touches no hot-path state beyond a few volatile reads and two {@code LongAdder} sums.
 */
public final class TmMetricsSource implements MetricsSource {
    static final MetricsInfo PRIMARY = info("Primary", "1 while this process holds the primary lease and serves");
    static final MetricsInfo EPOCH = info("Epoch", "base timestamp of the current primary's epoch");
    static final MetricsInfo LAST_TIMESTAMP = info("LastTimestamp", "last timestamp the oracle issued");
    static final MetricsInfo LOW_WATER_MARK = info("LowWaterMark",
            "commits of transactions that started below it abort (BELOW_LOW_WATER_MARK)");
    static final MetricsInfo LOW_WATER_MARK_LAG_MS = info("LowWaterMarkLagMs",
            "milliseconds between the last timestamp issued and the low-water mark: a transaction running longer"
                    + " than this may abort BELOW_LOW_WATER_MARK (-1: no mark yet)");
    static final MetricsInfo OPEN_TRANSACTIONS = info("OpenTransactions",
            "transactions (and index-build fences) holding the GC horizon");
    static final MetricsInfo CONFLICT_CAPACITY = info("ConflictTableCapacity", "conflict-table entries");
    static final MetricsInfo CONFLICT_OCCUPIED = info("ConflictTableOccupied", "conflict-table entries in use");
    static final MetricsInfo CONFLICT_EVICTIONS = info("ConflictTableEvictions",
            "conflict-table entries overwritten by a newer row (each may raise the low-water mark), this term");
    static final MetricsInfo CONNECTED_CLIENTS = info("ConnectedClients", "open client connections");
    static final MetricsInfo REQUEST_QUEUE = info("RequestQueueDepth",
            "requests and batches waiting for a TM worker thread");

    private final TmMetrics counters;
    private final Supplier<TransactionManagerCore> core;
    private final Supplier<TmServer> server;

    /**
     * @param core   the current primary's core, or null while there is none
     * @param server the current primary's server, or null while there is none
     */
    public TmMetricsSource(TmMetrics counters, Supplier<TransactionManagerCore> core, Supplier<TmServer> server) {
        this.counters = counters;
        this.core = core;
        this.server = server;
    }

    @Override
    public void getMetrics(MetricsCollector collector, boolean all) {
        MetricsRecordBuilder record = collector.addRecord(TmMetrics.RECORD).setContext("phoenixtxn");
        TransactionManagerCore tm = core.get();
        boolean primary = tm != null && tm.isServing() && tm.leaseHeld();
        record.addGauge(PRIMARY, primary ? 1 : 0);
        if (tm != null) {
            long last = tm.oracle().last();
            long mark = tm.currentLowWaterMark();
            record.addGauge(EPOCH, tm.epochBase())
                    .addGauge(LAST_TIMESTAMP, last)
                    .addGauge(LOW_WATER_MARK, mark)
                    .addGauge(LOW_WATER_MARK_LAG_MS, mark <= 0 ? -1
                            : (last - mark) / TimestampLayout.UNITS_PER_MILLI)
                    .addGauge(OPEN_TRANSACTIONS, tm.openTransactions())
                    .addGauge(CONFLICT_CAPACITY, tm.conflictTableCapacity())
                    .addGauge(CONFLICT_OCCUPIED, tm.conflictTableOccupied())
                    .addCounter(CONFLICT_EVICTIONS, tm.conflictTableEvictions());
        }
        TmServer srv = server.get();
        if (srv != null) {
            record.addGauge(CONNECTED_CLIENTS, srv.connectionCount())
                    .addGauge(REQUEST_QUEUE, srv.queuedRequests());
        }
        counters.snapshot(record, all);
    }
}
