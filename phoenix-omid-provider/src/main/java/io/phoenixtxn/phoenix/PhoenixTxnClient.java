package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.transaction.PhoenixTransactionClient;

import java.io.IOException;

/**
 * What Phoenix caches per connection service for our provider: an HBase connection for the commit table and
 * post-commit, and a {@link TxnClient} that asks the TM supplier on every call. Which TM that is, is
 * {@link TmLocator}'s decision ({@code phoenix.txn.tm.mode}); a locator failure fails the connection service with
 * its message. Also the fast path of that client, for statements routed onto it ({@link FastPathRoute}), and its
 * beliefs about tables' fast-path switches.
 */
final class PhoenixTxnClient implements PhoenixTransactionClient {
    private final TmHandle tm;
    private final Connection hbase;
    private final TxnClient client;
    private final FastPathClient fastPath;
    private final FastPathSwitchCache switches;
    private final BoundedAdminSwitchReader switchReader;
    private final boolean routing;
    private final long metadataRepairMs;
    private final TmClockEstimate tmClock = new TmClockEstimate();
    /** The connection service whose metadata cache this client repairs; set on first use (see watchMetadata). */
    private final java.util.concurrent.atomic.AtomicReference<ConnectionQueryServices> watched =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Rollback repairs of one connection service are at least this far apart (100 ms). */
    private static final long ROLLBACK_REPAIR_SPACING_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);
    private final RepairPacer rollbackRepairs = new RepairPacer(ROLLBACK_REPAIR_SPACING_NANOS, System.nanoTime());

    /** Client key: route eligible auto-commit statements onto the fast path (and begin transactions lazily). */
    static final String ROUTING_KEY = io.phoenixtxn.tm.TxnSettings.FASTPATH_ROUTING.key();

    PhoenixTxnClient(Configuration conf) throws IOException {
        this.tm = TmLocator.locate(conf::get);
        try {
            this.hbase = ConnectionFactory.createConnection(conf);
        } catch (IOException | RuntimeException e) {
            tm.close();
            throw e;
        }
        try {
            this.client = new TxnClient(hbase, tm, TxnClientConfig.from(conf::get));
        } catch (IOException | RuntimeException e) {
            hbase.close();
            tm.close();
            throw e;
        }
        this.fastPath = new FastPathClient(client);
        this.routing = io.phoenixtxn.tm.TxnSettings.FASTPATH_ROUTING.get(conf::get);
        this.metadataRepairMs = io.phoenixtxn.tm.TxnSettings.METADATA_REPAIR_MS.get(conf::get);
        long ttl = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_CACHE_MS.get(conf::get);
        long failureTtl = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_FAILURE_CACHE_MS.get(conf::get);
        long timeout = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_READ_TIMEOUT_MS.get(conf::get);
        this.switchReader = new BoundedAdminSwitchReader(conf, timeout);
        this.switches = new FastPathSwitchCache(switchReader, ttl, failureTtl, timeout, System::currentTimeMillis);
    }

    /** For unit tests of the provider: the parts given, no TM discovery and no HBase connection of its own. */
    PhoenixTxnClient(TxnClient client, FastPathClient fastPath, FastPathSwitchCache switches, boolean routing) {
        this.tm = null;
        this.hbase = null;
        this.client = client;
        this.fastPath = fastPath;
        this.switches = switches;
        this.switchReader = null;
        this.routing = routing;
        this.metadataRepairMs = 0;
    }

    /**
     * Called with the connection service that uses this client (Phoenix keeps one client per service): the first
     * call starts the periodic {@link MetadataCacheRepair} of that service's cache.
     */
    void watchMetadata(ConnectionQueryServices services) {
        if (watched.get() != null || !watched.compareAndSet(null, services)) {
            return;
        }
        if (metadataRepairMs > 0) {
            client.scheduleHousekeeping("repairing the Phoenix metadata cache",
                    () -> MetadataCacheRepair.repair(services), metadataRepairMs);
        }
    }

    /**
     * The repair at the rollback of a transaction that wrote nothing (what an application does after a failed read),
     * at most once per {@link #ROLLBACK_REPAIR_SPACING_NANOS} per connection service: the repair walks the whole
     * metadata cache, and read-only rollbacks can come at any rate. One skipped here is the periodic repair's.
     */
    void repairMetadataAfterReadOnlyRollback(ConnectionQueryServices services) {
        if (rollbackRepairs.due(System.nanoTime())) {
            MetadataCacheRepair.repair(services);
        }
    }

    TxnClient txnClient() {
        return client;
    }

    /** This client's HBase connection (null in unit tests built from parts). */
    Connection hbase() {
        return hbase;
    }

    FastPathClient fastPath() {
        return fastPath;
    }

    FastPathSwitchCache switches() {
        return switches;
    }

    /** This client's estimate of the TM's clock, for provisional ids. */
    TmClockEstimate tmClock() {
        return tmClock;
    }

    /** {@code phoenix.txn.fastpath.routing}: false keeps every statement on the regular path, begun eagerly. */
    boolean routing() {
        return routing;
    }

    @Override
    public void close() throws IOException {
        try {
            try {
                switches.close();
                if (switchReader != null) {
                    switchReader.close();
                }
            } finally {
                try {
                    fastPath.close();
                } finally {
                    client.close();
                }
            }
        } finally {
            try {
                if (hbase != null) {
                    hbase.close();
                }
            } finally {
                if (tm != null) {
                    tm.close();
                }
            }
        }
    }
}
