package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pending-status questions come from readers on region servers, each holding an RPC handler: during a TM failover
 * they answer UNKNOWN within their own budget ({@link RemoteTmConfig#STATUS_TIMEOUT_MS}) and never wait for
 * discovery, whatever other callers of the same client wait for.
 */
@Timeout(60)
class StatusLivenessTest {
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void statusFromATmThatNeverAnswersIsUnknownWithinItsBudget() throws Exception {
        BlockingTm silent = track(new BlockingTm(track(NetTestSupport.newCore())));
        TmServer server = track(NetTestSupport.startServer(silent));
        int budgetMs = 2_000;
        RemoteTransactionManager client = track(NetTestSupport.connect(server, NetTestSupport.clientConfig()
                .withConnections(1).withRequestTimeoutMs(30_000).withStatusTimeoutMs(budgetMs)));
        long writer = client.begin();
        long reader = client.begin();
        silent.holdStatusAnswers();

        long asked = System.nanoTime();
        PendingStatus first = assertTimeoutPreemptively(Duration.ofMillis(budgetMs + 3_000),
                () -> client.pendingStatus(writer, reader), "the question outlived its budget");
        assertEquals(PendingStatus.Kind.UNKNOWN, first.kind());
        assertTrue(System.nanoTime() - asked >= TimeUnit.MILLISECONDS.toNanos(budgetMs), "gave up before the budget");

        // The connection let a question go unanswered: the next question does not wait on it again.
        PendingStatus second = assertTimeoutPreemptively(Duration.ofMillis(budgetMs / 2),
                () -> client.pendingStatus(writer, reader), "waited again on a connection that does not answer");
        assertEquals(PendingStatus.Kind.UNKNOWN, second.kind());
        // A status timeout is no verdict on the connection: it stays up for the other requests.
        assertTrue(client.begin() > reader);
        assertEquals(1, client.connectionsOpened());
    }

    @Test
    void statusIsUnknownAtOnceWhileABeginWaitsForDiscovery() throws Exception {
        TmServer server = NetTestSupport.startServer(track(NetTestSupport.newCore()));
        DiscoveryResolver resolver = new DiscoveryResolver(NetTestSupport.endpoint(server, 0));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig().withConnections(1).withStatusTimeoutMs(5_000)));
        track(resolver); // closed before the client: wakes the begin that waits in it
        long writer = client.begin();
        long reader = client.begin();

        resolver.losePrimary();
        server.close();
        awaitCondition(() -> client.usableConnections() == 0);
        CompletableFuture<Long> begin = CompletableFuture.supplyAsync(() -> {
            try {
                return client.begin();
            } catch (TmException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(resolver.awaitWaitingCaller(10, TimeUnit.SECONDS), "the begin never asked the resolver");

        PendingStatus status = assertTimeoutPreemptively(Duration.ofSeconds(1),
                () -> client.pendingStatus(writer, reader), "the question waited for discovery behind the begin");
        assertEquals(PendingStatus.Kind.UNKNOWN, status.kind());
        assertFalse(begin.isDone(), "the begin still waits for a primary");
    }

    @Test
    void closingTheClientDoesNotWaitForABeginWaitingForDiscovery() throws Exception {
        TmServer server = NetTestSupport.startServer(track(NetTestSupport.newCore()));
        DiscoveryResolver resolver = new DiscoveryResolver(NetTestSupport.endpoint(server, 0));
        RemoteTransactionManager client = RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig().withConnections(1));
        resolver.losePrimary();
        server.close();
        awaitCondition(() -> client.usableConnections() == 0);
        CompletableFuture<Long> begin = CompletableFuture.supplyAsync(() -> {
            try {
                return client.begin();
            } catch (TmException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(resolver.awaitWaitingCaller(10, TimeUnit.SECONDS), "the begin never asked the resolver");

        assertTimeoutPreemptively(Duration.ofSeconds(10), client::close, "close waited for discovery");
        assertTrue(resolver.isClosed());
        assertThrows(Exception.class, () -> begin.get(10, TimeUnit.SECONDS), "the waiting begin fails");
    }

    @Test
    void statusWithoutAConnectionLetsTheClientReconnectInTheBackground() throws Exception {
        TmServer first = NetTestSupport.startServer(track(NetTestSupport.newCore()));
        DiscoveryResolver resolver = new DiscoveryResolver(NetTestSupport.endpoint(first, 0));
        RemoteTransactionManager client = track(RemoteTransactionManager.connect(resolver,
                NetTestSupport.clientConfig().withConnections(1)));
        track(resolver);
        first.close();
        awaitCondition(() -> client.usableConnections() == 0);
        TransactionManagerCore secondCore = track(NetTestSupport.newCore());
        TmServer second = track(NetTestSupport.startServer(secondCore));
        resolver.elect(NetTestSupport.endpoint(second, 0));
        long writer = secondCore.begin();
        long reader = secondCore.begin();

        assertEquals(PendingStatus.Kind.UNKNOWN, client.pendingStatus(writer, reader).kind(),
                "no connection: UNKNOWN at once, without connecting on the caller's thread");
        awaitCondition(() -> client.usableConnections() == 1);
        assertEquals(PendingStatus.Kind.NOT_DECIDED, client.pendingStatus(writer, reader).kind());
    }

    /** Polls a condition the code under test offers no event for (a socket close seen by the client). */
    private static void awaitCondition(BooleanSupplier condition) throws InterruptedException {
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
