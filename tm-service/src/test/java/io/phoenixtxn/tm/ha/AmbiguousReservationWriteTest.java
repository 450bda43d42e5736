package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.FenceStore;
import io.phoenixtxn.tm.Lease;
import io.phoenixtxn.tm.LostPrimacyException;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A TM whose timestamp reservation write is applied by ZooKeeper but answered ambiguously (CONNECTIONLOSS, or a
 * retry that finds the version moved) keeps serving: the failed call reports a plain failure, never lost primacy,
 * and the next one goes on from the TM's own write. Every timestamp stays strictly increasing and inside the
 * reservation ZooKeeper holds, and a successor TM still starts above all of them while the old one stops.
 */
@Tag("slow")
class AmbiguousReservationWriteTest {
    private static final long RESERVATION_MS = 1_000;
    private static final long START_MILLIS = 1_717_200_000_000L;
    @RegisterExtension
    static final ZkTestCluster zk = new ZkTestCluster();

    @Test
    @Timeout(60)
    void theTmKeepsServingThroughAmbiguousReservationWritesAndStaysInsideItsReservation() throws Exception {
        ZkPaths paths = new ZkPaths(ZkTestCluster.freshBasePath());
        FaultyZNode node = new FaultyZNode(zk.newClient(), paths.timestamp());
        ZooKeeperTimestampStorage observer = new ZooKeeperTimestampStorage(zk.newClient(), paths);
        AtomicLong wallClock = new AtomicLong(START_MILLIS);
        TransactionManagerCore tm = TransactionManagerCore.start(config(), wallClock::get,
                new ZooKeeperTimestampStorage(node), FenceStore.inMemory(), Lease.ALWAYS_HELD);
        Issued issued = new Issued(tm, observer);
        issued.check(tm.begin());

        FaultyZNode.Fault[] faults = FaultyZNode.Fault.values();
        for (int round = 0; round < 3 * faults.length; round++) {
            FaultyZNode.Fault fault = faults[round % faults.length];
            wallClock.addAndGet(2 * RESERVATION_MS); // past the reservation: the next timestamp needs a new one
            node.failNextWrite(fault);
            long ts;
            if (fault == FaultyZNode.Fault.APPLIED_THEN_RETRY_SEES_BAD_VERSION) {
                ts = tm.begin(); // settled inside the call
            } else {
                TmException unclear = assertThrows(TmException.class, tm::begin, fault.name());
                assertFalse(unclear instanceof LostPrimacyException, fault + ": " + unclear.getMessage());
                assertTrue(tm.isServing(), fault + ": an unclear write must not stop the TM");
                ts = tm.begin(); // the client's retry
            }
            assertEquals(round + 1, node.injected(), "the fault of round " + round + " was reached");
            issued.check(ts);
            CommitDecision decision = tm.commit(ts, new long[] {round}, new long[] {1});
            assertTrue(decision.isCommitted(), fault + ": " + decision);
            issued.check(decision.commitTimestamp());
            for (int i = 0; i < 100; i++) {
                issued.check(tm.begin());
            }
        }

        TransactionManagerCore successor = TransactionManagerCore.start(config(), wallClock::get,
                new ZooKeeperTimestampStorage(zk.newClient(), paths), FenceStore.inMemory(), Lease.ALWAYS_HELD);
        assertTrue(successor.epochBase() >= issued.last, "the successor's epoch starts above every timestamp");
        assertTrue(successor.begin() > issued.last);
        wallClock.addAndGet(2 * RESERVATION_MS);
        assertThrows(LostPrimacyException.class, tm::begin, "the old TM cannot reserve again");
        assertFalse(tm.isServing());
    }

    private static TmConfig config() {
        return TmConfig.from(key -> TmConfig.TIMESTAMP_RESERVATION_MS.equals(key) ? Long.toString(RESERVATION_MS)
                : null).withConflictEntries(1 << 12);
    }

    /** Checks each timestamp as it is issued: above the previous one, inside the reservation ZooKeeper holds. */
    private static final class Issued {
        private final TransactionManagerCore tm;
        private final ZooKeeperTimestampStorage observer;
        private long last;

        Issued(TransactionManagerCore tm, ZooKeeperTimestampStorage observer) {
            this.tm = tm;
            this.observer = observer;
        }

        void check(long ts) throws TmException {
            assertTrue(ts > last, ts + " after " + last);
            long stored = observer.getMaxTimestamp();
            assertTrue(ts <= tm.oracle().reservedMax(), "issued outside the oracle's reservation");
            assertEquals(stored, tm.oracle().reservedMax(), "the oracle's reservation is the one in ZooKeeper");
            last = ts;
        }
    }
}
