package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.PendingStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The TM server's workers: a pending-status question that waits for a decision holds none of them. */
@Timeout(60)
class RequestDispatcherTest {
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void questionWaitingForADecisionLeavesTheOnlyWorkerFree() throws Exception {
        BlockingTm held = track(new BlockingTm(NetTestSupport.newCore()));
        held.holdStatusAnswers();
        TmServer server = track(TmServer.start(held, NetTestSupport.serverConfig().withWorkerThreads(1)));
        RemoteTransactionManager tm = track(NetTestSupport.connect(server));
        long writer = tm.begin();
        long reader = tm.begin();

        CompletableFuture<PendingStatus> status = tm.pendingStatusAsync(writer, reader);
        long lowWaterMark = assertTimeoutPreemptively(Duration.ofSeconds(5), tm::lowWaterMark,
                "the one worker stayed busy with a question waiting for a decision");
        assertEquals(0, lowWaterMark);
        assertFalse(status.isDone(), "answered before the decision: " + status.getNow(null));

        held.answerHeldStatus(PendingStatus.decided(reader + 1));
        assertEquals(PendingStatus.decided(reader + 1).toString(), status.get(10, TimeUnit.SECONDS).toString());
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }
}
