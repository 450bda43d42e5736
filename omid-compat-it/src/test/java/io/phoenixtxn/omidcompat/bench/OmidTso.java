package io.phoenixtxn.omidcompat.bench;

import com.google.inject.Guice;
import com.google.inject.Injector;
import io.phoenixtxn.bench.tm.TxnSystem;
import org.apache.omid.tso.TSOMockModule;
import org.apache.omid.tso.TSOServer;
import org.apache.omid.tso.TSOServerConfig;
import org.apache.omid.tso.client.AbortException;
import org.apache.omid.tso.client.CellId;
import org.apache.omid.tso.client.OmidClientConfiguration;
import org.apache.omid.tso.client.TSOClient;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Apache Omid 1.1.2's TSO in this JVM, as Omid's own tests build it ({@code TSOMockModule}: in-memory timestamp
 * storage and in-memory commit table, mock panicker), reached by Omid's own client ({@link TSOClient}) over
 * loopback: the only way Omid offers to call its TSO (its request processor answers on Netty channels). Its
 * defaults except the conflict map, sized like ours (4M entries; Omid's default of 100M needs 1.6 GB), and the
 * mode: legacy (the TSO writes each commit to its commit table in batches, FAST'17) or low latency (Omid LL: the
 * client writes the commit table; our TM's design).
 */
final class OmidTso implements TxnSystem {
    private final TSOServer tso;
    private final TSOClient client;
    private final String name;

    private OmidTso(TSOServer tso, TSOClient client, String name) {
        this.tso = tso;
        this.client = client;
        this.name = name;
    }

    static OmidTso start(int conflictMapSize, boolean lowLatency) throws Exception {
        int port = freePort();
        TSOServerConfig config = new TSOServerConfig();
        config.setPort(port);
        config.setConflictMapSize(conflictMapSize);
        config.setLowLatency(lowLatency);
        Injector injector = Guice.createInjector(new TSOMockModule(config));
        TSOServer tso = injector.getInstance(TSOServer.class);
        tso.startAsync();
        tso.awaitRunning(60, TimeUnit.SECONDS);
        waitForListening(port);
        OmidClientConfiguration clientConfig = new OmidClientConfiguration();
        clientConfig.setConnectionType(OmidClientConfiguration.ConnType.DIRECT);
        clientConfig.setConnectionString("localhost:" + port);
        TSOClient client = TSOClient.newInstance(clientConfig);
        return new OmidTso(tso, client, "omid-1.1.2 tso " + (lowLatency ? "low-latency" : "legacy")
                + " loopback (wait " + config.getWaitStrategy() + ", batch " + config.getBatchSizePerCTWriter()
                + "/" + config.getBatchPersistTimeoutInMs() + " ms)");
    }

    @Override
    public long begin() throws Exception {
        return client.getNewStartTimestamp().get();
    }

    @Override
    public boolean commit(long txId, long[] rows) throws Exception {
        Set<RowCell> cells = new HashSet<>();
        for (long row : rows) {
            cells.add(new RowCell(row));
        }
        try {
            client.commit(txId, cells).get();
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AbortException) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void close() throws Exception {
        try {
            client.close().get(10, TimeUnit.SECONDS);
        } finally {
            tso.stopAsync();
            tso.awaitTerminated(30, TimeUnit.SECONDS);
        }
    }

    /** A written row: its 64-bit hash is the cell, the row and (for fences) a fixed table. */
    private record RowCell(long row) implements CellId {
        @Override
        public long getCellId() {
            return row;
        }

        @Override
        public long getTableId() {
            return 0x7AB1EL;
        }

        @Override
        public long getRowId() {
            return row;
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
