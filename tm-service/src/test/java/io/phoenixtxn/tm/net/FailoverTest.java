package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.InMemoryTimestampStorage;
import io.phoenixtxn.tm.Clock;
import io.phoenixtxn.tm.FenceStore;
import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lost servers, wedged servers, moving primaries and late answers. */
@Timeout(60)
class FailoverTest {
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void closingTheServerFailsBlockedCallsAtOnce() throws Exception {
        BlockingTm tm = track(new BlockingTm(track(NetTestSupport.newCore())));
        TmServer server = NetTestSupport.startServer(tm);
        resources.add(server);
        RemoteTransactionManager client = track(NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withRequestTimeoutMs(30_000)));
        tm.blockBegins();
        CompletableFuture<Long> blocked = client.beginAsync();
        assertTrue(tm.awaitBlockedBegin(10, TimeUnit.SECONDS));

        CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
        // The request timeout is 30 s: failing within 2 s proves the close, not a timer, ended the call.
        ExecutionException failure = assertThrows(ExecutionException.class, () -> blocked.get(2, TimeUnit.SECONDS));
        assertInstanceOf(TmException.class, failure.getCause());
        assertTrue(failure.getCause().getMessage().contains("outcome"), failure.getCause().getMessage());
        closing.get(10, TimeUnit.SECONDS);

        TmException refused = assertTimeoutPreemptively(Duration.ofSeconds(3),
                () -> assertThrows(TmException.class, client::begin), "a dead server must fail calls fast");
        assertTrue(refused.getMessage().contains("Cannot connect to the TM"), refused.getMessage());
    }

    @Test
    void clientReconnectsWhenTheServerComesBack() throws Exception {
        TmServer first = NetTestSupport.startServer(track(NetTestSupport.newCore()));
        int port = first.address().getPort();
        RemoteTransactionManager client = track(NetTestSupport.connect(first));
        client.begin();
        first.close();
        assertThrows(TmException.class, client::begin);

        TmServer second = track(TmServer.start(track(NetTestSupport.newCore()),
                NetTestSupport.serverConfig().withPort(port)));
        assertTrue(client.begin() > 0);
        assertEquals(1, second.connectionCount());
    }

    @Test
    void wedgedServerTimesOutAndTheNextCallReconnects() throws Exception {
        BlockingTm tm = track(new BlockingTm(track(NetTestSupport.newCore())));
        TmServer server = track(NetTestSupport.startServer(tm));
        RemoteTransactionManager client = track(NetTestSupport.connect(server,
                NetTestSupport.clientConfig().withRequestTimeoutMs(1_000).withConnections(1)));
        tm.blockBegins();
        TmException e = assertThrows(TmException.class, client::begin);
        assertTrue(e.getMessage().contains("No answer from the TM"), e.getMessage());
        assertTrue(e.getMessage().contains(RemoteTmConfig.REQUEST_TIMEOUT_MS), e.getMessage());
        tm.release();
        assertTrue(client.begin() > 0);
        assertEquals(2, client.connectionsOpened(), "the timed-out channel was replaced");
    }

    @Test
    void silentPeerFailsTheHandshakeInTime() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return silent.accept();
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            });
            RemoteTmConfig config = NetTestSupport.clientConfig().withConnectTimeoutMs(200).withRequestTimeoutMs(300);
            TmException e = assertThrows(TmException.class, () -> RemoteTransactionManager.connect(
                    new StaticEndpointResolver("127.0.0.1", silent.getLocalPort()), config));
            assertTrue(e.getMessage().contains("Handshake with the TM"), e.getMessage());
            assertTrue(e.getMessage().contains("within 500 ms"), e.getMessage());
            assertFalse(e.getMessage().contains("TLS"), "a silent peer is no hint at TLS: " + e.getMessage());
            accepted.get(5, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void resolverWithoutPrimaryFailsConnect() {
        SwitchableResolver resolver = new SwitchableResolver(null);
        TmException e = assertThrows(TmException.class,
                () -> RemoteTransactionManager.connect(resolver, NetTestSupport.clientConfig()));
        assertTrue(e.getMessage().contains("no TM primary is elected"), e.getMessage());
        assertTrue(resolver.isClosed(), "a failed connect closes the resolver it was given");
    }

    @Test
    void lateBeginFromADeposedPrimaryIsRetriedOnTheNewOne() throws Exception {
        TransactionManagerCore oldCore = track(NetTestSupport.newCore());
        long epoch = oldCore.begin() + 1_000_000 * TimestampLayout.UNITS_PER_MILLI; // ~17 min ahead of it
        TmServer oldPrimary = track(NetTestSupport.startServer(oldCore));
        TmServer newPrimary = track(NetTestSupport.startServer(track(coreAbove(epoch))));

        // The resolver already knows the new epoch but still names the old address: its answer is stale.
        SwitchableResolver resolver = new SwitchableResolver(NetTestSupport.endpoint(oldPrimary, epoch));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig()));
        resolver.moveSilently(NetTestSupport.endpoint(newPrimary, epoch));

        long ts = client.begin();
        assertTrue(ts > epoch, "got " + ts + ", epoch " + epoch);
        assertEquals(1, newPrimary.connectionCount());
    }

    /** A region server bootstraps its version clock with this timestamp: a deposed primary's would be too low. */
    @Test
    void lateTimestampFromADeposedPrimaryIsRetriedOnTheNewOne() throws Exception {
        TransactionManagerCore oldCore = track(NetTestSupport.newCore());
        long epoch = oldCore.begin() + 1_000_000 * TimestampLayout.UNITS_PER_MILLI;
        TmServer oldPrimary = track(NetTestSupport.startServer(oldCore));
        TmServer newPrimary = track(NetTestSupport.startServer(track(coreAbove(epoch))));
        SwitchableResolver resolver = new SwitchableResolver(NetTestSupport.endpoint(oldPrimary, epoch));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig()));
        resolver.moveSilently(NetTestSupport.endpoint(newPrimary, epoch));

        long ts = client.timestamp();
        assertTrue(ts > epoch, "got " + ts + ", epoch " + epoch);
        assertEquals(1, newPrimary.connectionCount());
    }

    @Test
    void timestampFailsIfEveryAnswerIsStale() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        long epoch = core.begin() + 1_000_000 * TimestampLayout.UNITS_PER_MILLI;
        TmServer server = track(NetTestSupport.startServer(core));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(
                new SwitchableResolver(NetTestSupport.endpoint(server, epoch)), NetTestSupport.clientConfig()));
        TmException e = assertThrows(TmException.class, client::timestamp);
        assertTrue(e.getMessage().contains("deposed primary"), e.getMessage());
    }

    @Test
    void beginFailsIfEveryAnswerIsStale() throws Exception {
        TransactionManagerCore core = track(NetTestSupport.newCore());
        long epoch = core.begin() + 1_000_000 * TimestampLayout.UNITS_PER_MILLI;
        TmServer server = track(NetTestSupport.startServer(core));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(
                new SwitchableResolver(NetTestSupport.endpoint(server, epoch)), NetTestSupport.clientConfig()));
        TmException e = assertThrows(TmException.class, client::begin);
        assertTrue(e.getMessage().contains("deposed primary"), e.getMessage());
        assertTrue(e.getMessage().contains("retry the transaction"), e.getMessage());
    }

    @Test
    void lateStatusFromAPrimaryOfAnOlderEpochIsUnknown() throws Exception {
        BlockingTm oldTm = track(new BlockingTm(track(NetTestSupport.newCore())));
        long epoch = oldTm.begin() + 1_000_000 * TimestampLayout.UNITS_PER_MILLI;
        TmServer oldPrimary = track(NetTestSupport.startServer(oldTm));
        TmServer newPrimary = track(NetTestSupport.startServer(track(coreAbove(epoch))));
        SwitchableResolver resolver = new SwitchableResolver(NetTestSupport.endpoint(oldPrimary, 0));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig().withConnections(2).withStatusTimeoutMs(30_000)));

        // A question reaches the old primary, which answers late...
        oldTm.holdStatusAnswers();
        CompletableFuture<PendingStatus> late = client.pendingStatusAsync(epoch - 5 * TimestampLayout.SLOT_WIDTH,
                epoch - TimestampLayout.SLOT_WIDTH);
        // ...after the client has learnt the new primary's epoch on its other connection.
        resolver.moveSilently(NetTestSupport.endpoint(newPrimary, epoch));
        for (int i = 0; i < 2 && newPrimary.connectionCount() == 0; i++) {
            client.begin();
        }
        assertEquals(1, newPrimary.connectionCount(), "the client never connected to the new primary");
        assertFalse(late.isDone(), "answered early: " + late.getNow(null));
        oldTm.answerHeldStatus(PendingStatus.notDecided());

        assertEquals(PendingStatus.Kind.UNKNOWN, late.get(10, TimeUnit.SECONDS).kind());
        awaitCondition(() -> oldPrimary.connectionCount() == 0); // and the stale connection is closed
    }

    @Test
    void primaryChangeDropsConnectionsToTheOldOne() throws Exception {
        TmServer oldPrimary = track(NetTestSupport.startServer(track(NetTestSupport.newCore())));
        TmServer newPrimary = track(NetTestSupport.startServer(track(NetTestSupport.newCore())));
        SwitchableResolver resolver = new SwitchableResolver(NetTestSupport.endpoint(oldPrimary, 0));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig().withConnections(1)));
        client.begin();
        assertEquals(1, oldPrimary.connectionCount());

        resolver.moveTo(NetTestSupport.endpoint(newPrimary, 0));
        // The listener only schedules the drop; the old server sees the close shortly after.
        awaitCondition(() -> oldPrimary.connectionCount() == 0);
        assertTrue(client.begin() > 0);
        assertEquals(1, newPrimary.connectionCount());
    }

    /** A core whose timestamp storage starts at {@code epoch}, as a new primary's does after a failover. */
    private static TransactionManagerCore coreAbove(long epoch) throws TmException {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        assertTrue(storage.compareAndSet(0, epoch));
        return TransactionManagerCore.start(TmConfig.defaults().withConflictEntries(1 << 16), Clock.SYSTEM, storage,
                FenceStore.inMemory(), Lease.ALWAYS_HELD);
    }

    /** Polls a condition the code under test offers no event for (a remote socket close). */
    private static void awaitCondition(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not reached within 10 s");
            Thread.sleep(10);
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }
}
