package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZkTestCluster;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The region-server flavour: never an unguarded in-process TM, never a blocked caller, never a TM started. */
@Tag("slow")
class BackgroundTmLocatorTest {
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();
    private static final LocatorFixture fixture = new LocatorFixture(zk);

    @AfterEach
    void stopTheEmbeddedTm() {
        EmbeddedTm.shutdown();
    }

    private static Function<String, String> settings(String base, String... extra) {
        return fixture.settings(base, TmMode.AUTO, extra);
    }

    @Test
    @Timeout(60)
    void onADeployedClusterItNeverAnswersTheInMemoryTmAndFindsThePrimaryInTheBackground() throws Exception {
        String base = fixture.deployedPath();
        Function<String, String> s = settings(base, HaConfig.DISCOVERY_TIMEOUT_MS, "20000");
        // An in-memory TM in the region server's JVM, started around the locator (a test, a stray client).
        TransactionManagerCore stray = EmbeddedTm.shared(TmConfig.from(s));
        try (BackgroundTmLocator locator = TmLocator.inBackground(s)) {
            long start = System.nanoTime();
            TransactionManager before = locator.get();
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "get() never waits for ZooKeeper");
            assertNull(before, "no primary yet: no TM, never the in-memory one");

            try (TmHaService server = fixture.startTmServer(s)) {
                server.awaitPrimary(20, TimeUnit.SECONDS);
                TransactionManager found = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (found == null && System.nanoTime() - deadline < 0) {
                    TransactionManager now = locator.get();
                    assertNotSame(stray, now, "the region server asked an in-memory TM on a deployed cluster");
                    found = now;
                    if (found == null) {
                        TimeUnit.MILLISECONDS.sleep(20); // polling a condition: the background connection
                    }
                }
                RemoteTransactionManager remote = assertInstanceOf(RemoteTransactionManager.class, found);
                assertTrue(remote.begin() > server.transactionManager().orElseThrow().epochBase());
            }
        }
    }

    @Test
    @Timeout(30)
    void answersTheEmbeddedTmAtOnceWhileAClientOfTheJvmHoldsItsMarkerOnTheSameCluster() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        int port = zk.server().getPort();
        // The client spells the quorum as the JDBC URL does, the region server as hbase-site.xml does.
        Function<String, String> client = settings(base, HaConfig.ZK_QUORUM, "127.0.0.1:" + port);
        Function<String, String> regionServer = settings(base, HaConfig.ZK_QUORUM, "localhost:" + port);
        try (BackgroundTmLocator locator = TmLocator.inBackground(regionServer)) {
            TmHandle handle = TmLocator.locate(client);
            handle.get().begin();
            TransactionManagerCore embedded = EmbeddedTm.inMemory();
            assertNotNull(embedded);
            assertSame(embedded, locator.get(), "the guarded embedded TM, on the first call");

            handle.close();
            assertNull(locator.get(), "without a marker the in-memory TM is not the cluster's TM any more");
        }
    }

    @Test
    @Timeout(30)
    void aMarkerOnAnotherBasePathDoesNotCount() throws Exception {
        try (TmHandle handle = TmLocator.locate(settings(ZkTestCluster.freshBasePath()));
             BackgroundTmLocator locator = TmLocator.inBackground(settings(ZkTestCluster.freshBasePath()))) {
            handle.get().begin();
            assertNotNull(EmbeddedTm.inMemory());
            assertNull(locator.get());
        }
    }

    @Test
    @Timeout(30)
    void neverStartsATm() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        try (BackgroundTmLocator locator = TmLocator.inBackground(settings(base))) {
            assertNull(locator.get());
            assertNull(EmbeddedTm.existing());
        }
        assertTrue(new TmDeployment(zk.newClient(), HaConfig.from(settings(base))).embeddedTms().isEmpty(),
                "and registers no marker");
    }

    @Test
    @Timeout(60)
    void answersTheTmThisJvmServes() throws Exception {
        Function<String, String> s = settings(ZkTestCluster.freshBasePath());
        try (TmHaService server = TmHaService.start(zk.newClient(), TmConfig.from(s).withConflictEntries(1 << 14),
                TmServerConfig.from(s), HaConfig.from(s));
             BackgroundTmLocator locator = TmLocator.inBackground(s)) {
            server.awaitPrimary(20, TimeUnit.SECONDS);
            EmbeddedTm.adopt(() -> server.transactionManager().orElse(null));
            assertSame(server.transactionManager().orElseThrow(), locator.get());
        }
    }
}
