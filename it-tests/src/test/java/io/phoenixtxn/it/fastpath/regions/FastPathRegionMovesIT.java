package io.phoenixtxn.it.fastpath.regions;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.client.fastpath.FastPathWriteConflictException;
import io.phoenixtxn.coprocessor.SnapshotReadObserver;
import io.phoenixtxn.it.RegionFaultsStack;
import io.phoenixtxn.it.RegionServerFaults;
import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The local version clock across region moves, splits and a region-server crash and restart (VLDB'18 sec. 4.3; issue
 * 12: "LVC monotonic across region move, split and region-server restart"). Three region servers in a JVM of their own
 * (failsafe execution {@code fastpath-region-its}: this test moves, splits and kills).
 *
 * <p>Each case forces the dangerous shape: a regular transaction T reads row z on server A, which bumps A's clock to
 * T's start; z's region then opens on server B, whose clock is provably behind T's start (asserted). Without the
 * region's bootstrap (a fresh TM timestamp before its first fast-path write) B would number the next fast-path write of
 * z below T's start: T would see it on its next read (a non-repeatable read) and could overwrite it unchecked (a lost
 * update). With it, the write is above T's start, T keeps reading its snapshot, and T's write of z aborts (Figure 3).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FastPathRegionMovesIT {
    private static final byte[] FAMILY = Bytes.toBytes("f");
    private static final byte[] QUALIFIER = Bytes.toBytes("v");
    private static final long WAIT_MS = 120_000;
    private static final AtomicInteger TABLES = new AtomicInteger();

    private static EmbeddedStack stack;
    private static TmHandle tm;
    private static TxnClient client;
    private static FastPathClient fastPath;
    /** The first region server (meta, the commit table: never crashed), and the two started for these tests. */
    private static ServerName original;
    private static ServerName serverA;
    private static ServerName serverB;

    @BeforeAll
    static void start() throws Exception {
        stack = RegionFaultsStack.get("FastPathRegionMovesIT");
        tm = TmLocator.locate(stack.configuration()::get);
        client = new TxnClient(connection(), tm, TxnClientConfig.from(stack.configuration()::get)
                .withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC));
        fastPath = new FastPathClient(client);
        original = RegionFaultsStack.original();
        List<ServerName> spares = RegionFaultsStack.spares();
        serverA = spares.get(0);
        serverB = spares.get(1);
    }

    private static void awaitOnlineAtMaster(ServerName server) throws Exception {
        RegionFaultsStack.awaitOnlineAtMaster(server);
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (tm != null) {
            tm.close();
        }
    }

    @Test
    @Order(1)
    void aRegionMovedToAServerWithAnOlderClockWritesAboveEveryReaderOfItsPreviousServer() throws Exception {
        ServerName from = serverA;
        ServerName to = serverB;
        warm(to);
        TableName name = createTable("fp_move");
        moveTo(name, row("z"), from);
        try (FastPathTable fp = fastPath.table(name); TransactionalTable t = client.table(name)) {
            fp.bwc(put("z", 0));
            Transaction reader = client.begin();
            assertEquals(0L, value(t.get(reader, get("z"))));
            assertBehind(to, reader);
            moveTo(name, row("z"), to);
            assertReaderKeepsItsSnapshotAndLosesTheRow(name, fp, t, reader, 0, 1);
        }
    }

    @Test
    @Order(2)
    void aDaughterOfASplitOpenedOnAServerWithAnOlderClockWritesAboveEveryReaderOfItsParent() throws Exception {
        ServerName from = serverA;
        ServerName to = serverB;
        TableName name = createTable("fp_split");
        moveTo(name, row("z"), from);
        try (FastPathTable fp = fastPath.table(name); TransactionalTable t = client.table(name)) {
            fp.bwc(put("a", 10));
            fp.bwc(put("z", 20));
            Transaction reader = client.begin();
            assertEquals(20L, value(t.get(reader, get("z"))));
            try (Admin admin = connection().getAdmin()) {
                admin.split(name, row("m"));
            }
            stack.hbase().waitFor(WAIT_MS, () -> stack.hbase().getMiniHBaseCluster().getRegions(name).size() == 2);
            stack.hbase().waitUntilNoRegionsInTransition(WAIT_MS);
            assertBehind(to, reader);
            moveTo(name, row("z"), to);
            assertReaderKeepsItsSnapshotAndLosesTheRow(name, fp, t, reader, 20, 21);
            assertEquals(10L, value(fp.brc(get("a"))), "the other daughter kept its row");
            long a = fp.bwc(put("a", 11));
            assertTrue(a > reader.txId(), "the daughter that stayed writes above the reader of its parent");
            assertEquals(11L, readRegular(name, "a"));
        }
    }

    /** Server A crashes after T read z there; z's region is recovered on an older server, then moved to a restarted one. */
    @Test
    @Order(3)
    void aRegionRecoveredFromACrashedServerWritesAboveItsReadersAndKeepsItsCommits() throws Exception {
        ServerName first = original;
        ServerName crashing = serverA;
        ServerName other = serverB;
        warm(first);
        TableName name = createTable("fp_crash");
        moveTo(name, row("z"), crashing);
        try (FastPathTable fp = fastPath.table(name); TransactionalTable t = client.table(name)) {
            long before = fp.bwc(put("z", 5)); // in the crashing server's WAL only
            Transaction reader = client.begin();
            assertEquals(5L, value(t.get(reader, get("z"))));
            assertBehind(first, reader);
            assertBehind(other, reader);
            crash(crashing);
            RegionInfo region = regionOf(name, row("z"));
            stack.hbase().waitFor(WAIT_MS, () -> {
                ServerName now = serverOf(name, row("z"));
                return !now.equals(crashing) && liveServers().contains(now)
                        && regionServer(now).getRegion(region.getEncodedName()) != null;
            });
            assertNotEquals(crashing, serverOf(name, row("z")));
            // T's own read below finds 5: the fast-path commit survived the crash (WAL replay). No other reader
            // touches the recovered region first: it would move the new server's clock past T.
            long after = assertReaderKeepsItsSnapshotAndLosesTheRow(name, fp, t, reader, 5, 6);
            assertTrue(after > before);

            ServerName restarted = stack.hbase().getMiniHBaseCluster().startRegionServer().getRegionServer()
                    .getServerName();
            awaitOnlineAtMaster(restarted);
            moveTo(name, row("z"), restarted);
            long onRestarted = fp.bwc(put("z", 7));
            assertTrue(onRestarted > after, onRestarted + " <= " + after);
            assertEquals(7L, value(fp.brc(get("z"))));
            assertEquals(7L, readRegular(name, "z"));
        }
    }

    /**
     * The region of z now opens on a server behind T: a fast-path write of z goes above T's start, T still reads its
     * snapshot ({@code seen}), T's write of z aborts, and a later reader sees the write. Returns the write's version.
     * Nothing reads z on the new server before the write: a read by T would move that server's clock past T's start.
     */
    private static long assertReaderKeepsItsSnapshotAndLosesTheRow(TableName name, FastPathTable fp,
                                                                   TransactionalTable t, Transaction reader, long seen,
                                                                   long value) throws Exception {
        long version = fp.bwc(put("z", value));
        assertTrue(version > reader.txId(), "the fast-path write on the new server went below a reader of the old one"
                + " (" + version + " <= " + reader.txId() + "): the region did not bootstrap its clock");
        assertEquals(seen, value(t.get(reader, get("z"))), "T's snapshot changed under it");
        assertThrows(FastPathWriteConflictException.class, () -> t.put(reader, put("z", -1)),
                "T overwrote a fast-path commit it never saw");
        client.abort(reader);
        assertEquals(value, value(fp.brc(get("z"))));
        assertEquals(value, readRegular(name, "z"));
        return version;
    }

    /** The server's clock is below T's start: it never saw T, so without a bootstrap it would number below T. */
    private static void assertBehind(ServerName server, Transaction reader) {
        long clock = clockOf(server);
        assertTrue(clock > 0 && clock < reader.txId(), "precondition: " + server + "'s clock (" + clock
                + ") is running and behind T (" + reader.txId() + ")");
    }

    /** Gives {@code server} a running clock, in a slot older than every transaction begun after this. */
    private static void warm(ServerName server) throws Exception {
        TableName name = createTable("fp_warm");
        moveTo(name, row("w"), server);
        try (FastPathTable fp = fastPath.table(name)) {
            fp.bwc(put("w", 1));
        }
    }

    private static long clockOf(ServerName server) {
        for (HRegion region : regionServer(server).getRegions()) {
            SnapshotReadObserver observer = region.getCoprocessorHost() == null ? null
                    : region.getCoprocessorHost().findCoprocessor(SnapshotReadObserver.class);
            if (observer != null) {
                return observer.fastPath().clock().current();
            }
        }
        return -1;
    }

    private static HRegionServer regionServer(ServerName server) {
        return RegionServerFaults.regionServer(stack.hbase(), server);
    }

    private static List<ServerName> liveServers() {
        return RegionServerFaults.liveServers(stack.hbase());
    }

    private static void crash(ServerName server) throws Exception {
        RegionServerFaults.crash(stack.hbase(), server, WAIT_MS);
    }

    private static void moveTo(TableName name, byte[] row, ServerName server) throws Exception {
        for (int attempt = 1; ; attempt++) {
            RegionInfo region;
            try (RegionLocator locator = connection().getRegionLocator(name)) {
                region = locator.getRegionLocation(row, true).getRegion();
            }
            if (!server.equals(serverOf(name, row))) {
                try (Admin admin = connection().getAdmin()) {
                    admin.move(region.getEncodedNameAsBytes(), server);
                }
            }
            try {
                stack.hbase().waitFor(WAIT_MS / 4, () -> server.equals(serverOf(name, row))
                        && regionServer(server).getRegion(region.getEncodedName()) != null);
                stack.hbase().waitUntilNoRegionsInTransition(WAIT_MS);
                return;
            } catch (AssertionError notThere) {
                if (attempt == 3) {
                    throw new AssertionError("the region of " + Bytes.toStringBinary(row) + " in " + name
                            + " is on " + serverOf(name, row) + " after 3 moves to " + server, notThere);
                }
            }
        }
    }

    private static RegionInfo regionOf(TableName name, byte[] row) throws IOException {
        try (RegionLocator locator = connection().getRegionLocator(name)) {
            return locator.getRegionLocation(row, true).getRegion();
        }
    }

    private static ServerName serverOf(TableName name, byte[] row) throws IOException {
        try (RegionLocator locator = connection().getRegionLocator(name)) {
            return locator.getRegionLocation(row, true).getServerName();
        }
    }

    private static TableName createTable(String prefix) throws IOException {
        TableName name = TableName.valueOf(prefix + "_" + TABLES.incrementAndGet());
        try (Admin admin = connection().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                            .setMaxVersions(Integer.MAX_VALUE).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER)
                    .setValue(FastPathSwitch.ATTRIBUTE, "true").build());
        }
        return name;
    }

    private static Connection connection() throws IOException {
        return stack.hbase().getConnection();
    }

    private static Long readRegular(TableName name, String row) throws IOException {
        Transaction tx = client.begin();
        try (TransactionalTable t = client.table(name)) {
            return value(t.get(tx, get(row)));
        } finally {
            client.commit(tx);
        }
    }

    private static byte[] row(String row) {
        return Bytes.toBytes(row);
    }

    private static Put put(String row, long value) {
        return new Put(row(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value));
    }

    private static Get get(String row) {
        return new Get(row(row));
    }

    private static Long value(Result r) {
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        return v == null ? null : Bytes.toLong(v);
    }
}
