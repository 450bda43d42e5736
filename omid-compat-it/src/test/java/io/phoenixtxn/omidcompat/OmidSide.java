package io.phoenixtxn.omidcompat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.util.Modules;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.omid.committable.CommitTable;
import org.apache.omid.committable.hbase.HBaseCommitTable;
import org.apache.omid.committable.hbase.HBaseCommitTableConfig;
import org.apache.omid.transaction.HBaseOmidClientConfiguration;
import org.apache.omid.transaction.HBaseTransaction;
import org.apache.omid.transaction.HBaseTransactionManager;
import org.apache.omid.transaction.OmidTestAccess;
import org.apache.omid.transaction.TTable;
import org.apache.omid.transaction.Transaction;
import org.apache.omid.tso.TSOMockModule;
import org.apache.omid.tso.TSOServer;
import org.apache.omid.tso.TSOServerConfig;
import org.apache.omid.tso.client.OmidClientConfiguration;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongPredicate;

/**
 * The Apache Omid 1.1.2 side of the compatibility test, all in this JVM on our minicluster:
 * <ul>
 *   <li>a TSO built like Omid's own test TSO ({@code TSOMockModule}: in-memory timestamp storage, mock panicker), with
 *       WORLD_TIME timestamps (wall-clock ms x 1,000,000, like ours) and the legacy (non low-latency) protocol, whose
 *       commit-table binding is overridden with Omid's {@link HBaseCommitTable} on the shared
 *       {@code OMID_COMMIT_TABLE}: the TSO itself writes commit entries there;</li>
 *   <li>an Omid transaction manager with SYNC post-commit (shadow cells, then the commit-table entry is removed);</li>
 *   <li>one whose post-commit is skipped (a client that died after its commit: entry kept, no shadow cells);</li>
 *   <li>{@link TTable}s with client-side snapshot filtering ({@code omid.server.side.filter=false}): Omid needs no
 *       coprocessor on the table, so our observer can sit in the same descriptor.</li>
 * </ul>
 */
final class OmidSide implements AutoCloseable {
    private final TSOServer tso;
    private final HBaseTransactionManager tm;
    private final HBaseTransactionManager tmWithoutPostCommit;
    private final CommitTable.Client commitTable;
    private final Connection connection;

    private OmidSide(TSOServer tso, HBaseTransactionManager tm, HBaseTransactionManager tmWithoutPostCommit,
                     CommitTable.Client commitTable, Connection connection) {
        this.tso = tso;
        this.tm = tm;
        this.tmWithoutPostCommit = tmWithoutPostCommit;
        this.commitTable = commitTable;
        this.connection = connection;
    }

    /** Starts the TSO and the clients. The commit table must exist (our TxnClient creates it). */
    static OmidSide start(Configuration hbaseConf, Connection connection) throws Exception {
        int port = freePort();
        TSOServerConfig config = new TSOServerConfig();
        config.setPort(port);
        config.setConflictMapSize(1000);
        config.setWaitStrategy("LOW_CPU");
        config.setTimestampType(TSOServerConfig.TIMESTAMP_TYPE.WORLD_TIME.name());
        config.setLowLatency(false);
        CommitTable sharedCommitTable = new HBaseCommitTable(connection, new HBaseCommitTableConfig());
        Injector injector = Guice.createInjector(Modules.override(new TSOMockModule(config))
                .with(binder -> binder.bind(CommitTable.class).toInstance(sharedCommitTable)));
        TSOServer tso = injector.getInstance(TSOServer.class);
        tso.startAsync();
        tso.awaitRunning(60, TimeUnit.SECONDS);
        waitForListening(port);

        Configuration omidHBaseConf = new Configuration(hbaseConf);
        // Client-side snapshot filtering: Omid's TTable reads raw cells and filters them itself.
        omidHBaseConf.setBoolean("omid.server.side.filter", false);
        HBaseOmidClientConfiguration clientConf = new HBaseOmidClientConfiguration();
        clientConf.setConnectionString("localhost:" + port);
        clientConf.setHBaseConfiguration(omidHBaseConf);
        clientConf.setPostCommitMode(OmidClientConfiguration.PostCommitMode.SYNC);
        clientConf.setConflictAnalysisLevel(OmidClientConfiguration.ConflictDetectionLevel.CELL);
        HBaseTransactionManager tm = HBaseTransactionManager.builder(clientConf).build();

        HBaseOmidClientConfiguration crashingConf = new HBaseOmidClientConfiguration();
        crashingConf.setConnectionString("localhost:" + port);
        crashingConf.setHBaseConfiguration(omidHBaseConf);
        crashingConf.setPostCommitMode(OmidClientConfiguration.PostCommitMode.SYNC);
        HBaseTransactionManager crashing = OmidTestAccess.withoutPostCommit(crashingConf);

        CommitTable.Client client = new HBaseCommitTable(connection, new HBaseCommitTableConfig()).getClient();
        return new OmidSide(tso, tm, crashing, client, connection);
    }

    HBaseTransactionManager tm() {
        return tm;
    }

    HBaseTransactionManager tmWithoutPostCommit() {
        return tmWithoutPostCommit;
    }

    /** Omid's own commit-table client on the shared table. */
    CommitTable.Client commitTable() {
        return commitTable;
    }

    /** A TTable with client-side filtering, whatever the configuration says. */
    TTable table(String name) throws IOException {
        return new TTable(connection.getTable(org.apache.hadoop.hbase.TableName.valueOf(name)), false, false);
    }

    /**
     * Begins an Omid transaction whose start timestamp satisfies {@code wanted}, discarding (rolling back) others:
     * used to order Omid's snapshots after our commits. Sequential begins, 1 ms apart.
     */
    static HBaseTransaction begin(HBaseTransactionManager manager, LongPredicate wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            HBaseTransaction tx = (HBaseTransaction) manager.begin();
            if (wanted.test(tx.getStartTimestamp())) {
                return tx;
            }
            manager.rollback(tx);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("No Omid start timestamp of the wanted shape within 20 s; last "
                        + tx.getStartTimestamp());
            }
            Thread.sleep(1);
        }
    }

    /**
     * As {@link #begin}, with rounds of concurrent begins: the legacy TSO answers timestamp requests in batches, so
     * concurrent requests get consecutive timestamps of one millisecond (ms x 1,000,000 + k x 50, k = 0, 1, ...),
     * which sequential requests (one batch timeout apart) never get.
     */
    static HBaseTransaction beginConcurrently(HBaseTransactionManager manager, LongPredicate wanted)
            throws Exception {
        int parallel = 8;
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            List<Long> seen = new ArrayList<>();
            while (System.nanoTime() < deadline) {
                List<Future<Transaction>> round = new ArrayList<>();
                for (int i = 0; i < parallel; i++) {
                    round.add(pool.submit(manager::begin));
                }
                HBaseTransaction found = null;
                for (Future<Transaction> f : round) {
                    HBaseTransaction tx = (HBaseTransaction) f.get(30, TimeUnit.SECONDS);
                    seen.add(tx.getStartTimestamp());
                    if (found == null && wanted.test(tx.getStartTimestamp())) {
                        found = tx;
                    } else {
                        manager.rollback(tx);
                    }
                }
                if (found != null) {
                    return found;
                }
            }
            throw new IllegalStateException("No Omid start timestamp of the wanted shape within 20 s; saw " + seen);
        } finally {
            pool.shutdownNow();
        }
    }

    @Override
    public void close() throws TimeoutException {
        try {
            closeQuietly(tm);
            closeQuietly(tmWithoutPostCommit);
        } finally {
            tso.stopAsync();
            tso.awaitTerminated(30, TimeUnit.SECONDS);
        }
    }

    private static void closeQuietly(HBaseTransactionManager manager) {
        try {
            manager.close();
        } catch (IOException | RuntimeException e) {
            // shutting down
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void waitForListening(int port) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("localhost", port), 500);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("Omid TSO not listening on port " + port + " after 30 s", e);
                }
                Thread.sleep(50);
            }
        }
    }
}
