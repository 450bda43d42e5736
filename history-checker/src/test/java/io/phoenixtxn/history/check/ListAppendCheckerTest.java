package io.phoenixtxn.history.check;

import io.phoenixtxn.history.HistoryBuilder;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static io.phoenixtxn.history.HistoryBuilder.append;
import static io.phoenixtxn.history.HistoryBuilder.r;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-written list-append histories, one per anomaly kind the checker must find, and clean ones it must accept:
 * failed and unknown outcomes, write skew. Keys x=1, y=2, z=3, w=4; elements are unique per key.
 */
class ListAppendCheckerTest {
    private static final long X = 1;
    private static final long Y = 2;
    private static final long Z = 3;
    private static final long W = 4;

    private final HistoryBuilder h = new HistoryBuilder();

    @Test
    void aSerialHistoryIsValid() {
        h.txn(0, r(X), append(X, 1));
        h.txn(1, r(X, 1), append(X, 2), r(Y), append(Y, 1));
        h.read(0, r(X, 1, 2), r(Y, 1));
        h.finalRead(r(X, 1, 2), r(Y, 1));
        assertValid(check());
    }

    @Test
    void failedWritesNeverSeenAndUnknownWritesSeenOrNotAreValid() {
        h.failed(0, r(X), append(X, 1));           // 523: never observed
        h.unknown(1, r(X), append(X, 2));          // 1077, and it did commit: observed below
        h.unknown(2, r(Y), append(Y, 3));          // 1077, and it did not commit: never observed
        h.read(3, r(X, 2), r(Y));
        h.txn(4, r(X, 2), append(X, 4));
        h.finalRead(r(X, 2, 4), r(Y));
        assertValid(check());
    }

    @Test
    void anUnknownWriteIsNeverAStaleReadNorALostWrite() {
        h.unknown(0, r(X), append(X, 1));          // outcome unknown at the client...
        h.read(1, r(X));                           // ...a later read misses it: it may have committed later
        h.finalRead(r(X, 1));                      // it did commit
        assertValid(check());
        HistoryBuilder other = new HistoryBuilder();
        other.unknown(0, r(X), append(X, 1));
        other.finalRead(r(X));                     // or it did not
        assertValid(new ListAppendChecker(CheckerOptions.strict()).check(other.build()));
    }

    @Test
    void writeSkewIsAllowedUnderSnapshotIsolation() {
        int t1 = h.invoke(0, Names.TXN, r(X), r(Y), append(X, 1));
        int t2 = h.invoke(1, Names.TXN, r(X), r(Y), append(Y, 1));
        h.ok(0, r(X), r(Y), append(X, 1));
        h.ok(1, r(X), r(Y), append(Y, 1));
        h.finalRead(r(X, 1), r(Y, 1));
        CheckResult result = check();
        assertValid(result);
        assertEquals(1, result.anomalies(AnomalyKind.G2_ITEM).size(), result.report());
        assertEquals(Set.of(t1, t2), ids(result.anomalies(AnomalyKind.G2_ITEM).get(0)));
    }

    @Test
    void g0WriteCycle() {
        int t1 = h.invoke(0, Names.TXN, append(X, 1), append(Y, 1));
        int t2 = h.invoke(1, Names.TXN, append(X, 2), append(Y, 2));
        h.ok(0, append(X, 1), append(Y, 1));
        h.ok(1, append(X, 2), append(Y, 2));
        h.finalRead(r(X, 1, 2), r(Y, 2, 1));
        CheckResult result = check();
        assertFound(result, AnomalyKind.G0, t1, t2);
    }

    @Test
    void g1aAbortedRead() {
        int t1 = h.failed(0, r(X), append(X, 1));
        int t2 = h.read(1, r(X, 1));
        h.finalRead(r(X));
        assertFound(check(), AnomalyKind.G1A, t1, t2);
    }

    @Test
    void g1bIntermediateRead() {
        int t1 = h.invoke(0, Names.TXN, r(X), append(X, 1), r(X), append(X, 2));
        int t2 = h.read(1, r(X, 1));
        h.ok(0, r(X), append(X, 1), r(X, 1), append(X, 2));
        h.finalRead(r(X, 1, 2));
        assertFound(check(), AnomalyKind.G1B, t1, t2);
    }

    @Test
    void g1cCircularInformationFlow() {
        int t1 = h.invoke(0, Names.TXN, append(X, 1), r(Y));
        int t2 = h.invoke(1, Names.TXN, append(Y, 1), r(X));
        h.ok(0, append(X, 1), r(Y, 1));
        h.ok(1, append(Y, 1), r(X, 1));
        h.finalRead(r(X, 1), r(Y, 1));
        CheckResult result = check();
        assertFound(result, AnomalyKind.G1C, t1, t2);
        Anomaly cycle = result.anomalies(AnomalyKind.G1C).get(0);
        assertEquals(2, cycle.edges().size());
        assertTrue(cycle.edges().stream().allMatch(e -> e.kind() == EdgeKind.WR), cycle.describe());
        String report = result.report();
        assertTrue(report.contains("T" + t1 + " -wr-> T" + t2) && report.contains("T" + t2 + " -wr-> T" + t1)
                && report.contains("[:append 1 1]"), report);
    }

    @Test
    void gSingleReadSkewThroughAThirdTransaction() {
        int t1 = h.invoke(0, Names.READ, r(X), r(Y));             // reads x before t2, y after t3
        int t2 = h.txn(1, r(X), append(X, 2));
        int t3 = h.txn(2, r(X, 2), r(Y), append(Y, 5));
        h.ok(0, r(X), r(Y, 5));
        h.finalRead(r(X, 2), r(Y, 5));
        CheckResult result = check();
        assertFound(result, AnomalyKind.G_SINGLE, t1, t2, t3);
        assertTrue(result.anomalies(AnomalyKind.FRACTURED_READ).isEmpty(), "different writers: " + result.report());
        Anomaly cycle = result.anomalies(AnomalyKind.G_SINGLE).get(0);
        assertEquals(1, cycle.edges().stream().filter(e -> e.kind() == EdgeKind.RW).count(), cycle.describe());
    }

    @Test
    void fracturedReadOfOneTransactionsWrites() {
        int t1 = h.invoke(0, Names.READ, r(X), r(Y));
        int t2 = h.txn(1, r(X), append(X, 1), r(Y), append(Y, 1));
        h.ok(0, r(X, 1), r(Y));
        h.finalRead(r(X, 1), r(Y, 1));
        CheckResult result = check();
        assertFound(result, AnomalyKind.FRACTURED_READ, t1, t2);
        assertFound(result, AnomalyKind.G_SINGLE, t1, t2);
    }

    @Test
    void anUnknownTransactionSeenOnceIsCommittedSoMissingItsOtherWriteIsFractured() {
        int t2 = h.unknown(1, r(X), append(X, 1), r(Y), append(Y, 1));
        int t1 = h.read(0, r(X, 1), r(Y));
        h.finalRead(r(X, 1), r(Y, 1));
        assertFound(check(), AnomalyKind.FRACTURED_READ, t1, t2);
    }

    @Test
    void gNonadjacentLongFork() {
        // t1 -rw-> t2 -wr-> t3 -rw-> t4 -wr-> t1: two rw edges, never adjacent
        int t1 = h.invoke(0, Names.READ, r(X), r(W));
        int t3 = h.invoke(2, Names.READ, r(Y), r(Z));
        int t2 = h.invoke(1, Names.TXN, append(X, 1), append(Y, 2));   // concurrent writers: no real-time
        int t4 = h.invoke(3, Names.TXN, append(Z, 3), append(W, 4));   // order between them
        h.ok(1, append(X, 1), append(Y, 2));
        h.ok(3, append(Z, 3), append(W, 4));
        h.ok(0, r(X), r(W, 4));
        h.ok(2, r(Y, 2), r(Z));
        h.finalRead(r(X, 1), r(Y, 2), r(Z, 3), r(W, 4));
        CheckResult result = check();
        assertFound(result, AnomalyKind.G_NONADJACENT, t1, t2, t3, t4);
        assertTrue(result.anomalies(AnomalyKind.G_SINGLE).isEmpty(), result.report());
    }

    @Test
    void lostUpdate() {
        int t1 = h.invoke(0, Names.TXN, r(X), append(X, 1));
        int t2 = h.invoke(1, Names.TXN, r(X), append(X, 2));
        h.ok(0, r(X), append(X, 1));
        h.ok(1, r(X), append(X, 2));
        int end = h.finalRead(r(X, 2));          // t2 overwrote t1's list
        CheckResult result = check();
        assertFound(result, AnomalyKind.LOST_UPDATE, t1, t2);
        assertFound(result, AnomalyKind.LOST_WRITE, t1, end);
    }

    @Test
    void staleReadAfterAnAcknowledgedWrite() {
        int t1 = h.txn(0, r(X), append(X, 1));
        int t2 = h.read(1, r(X));                // begins after t1 was acknowledged, misses it
        h.finalRead(r(X, 1));
        assertFound(check(), AnomalyKind.STALE_READ, t1, t2);
    }

    @Test
    void staleReadIsNotCheckedForOperationsExemptFromRealTime() {
        h.txn(0, r(X), append(X, 1));
        h.read(1, r(X));
        h.finalRead(r(X, 1));
        assertValid(new ListAppendChecker(CheckerOptions.strict().exemptFromRealTime(Names.READ)).check(h.build()));
    }

    @Test
    void sessionOrderMakesAMissedOwnWriteACycle() {
        int t1 = h.txn(0, r(X), append(X, 1));
        int t2 = h.read(0, r(X));                // same process, after its own acknowledged write
        h.finalRead(r(X, 1));
        CheckResult result = check();
        assertFound(result, AnomalyKind.G_SINGLE, t1, t2);
        assertTrue(result.anomalies(AnomalyKind.G_SINGLE).get(0).edges().stream()
                .anyMatch(e -> e.kind() == EdgeKind.PROCESS), result.report());
    }

    @Test
    void realTimeOrderThroughAnotherTransactionMakesACycle() {
        // t3's outcome is unknown, so missing its append is no stale read by itself; but t1 saw t3, and t2 began
        // after t1 was acknowledged: t2's snapshot must include t3
        int t3 = h.unknown(2, r(Z), append(Z, 1), r(Y), append(Y, 5));
        int t1 = h.txn(0, r(Z, 1), append(Z, 2));
        int t2 = h.read(1, r(Y));
        h.finalRead(r(Z, 1, 2), r(Y, 5));
        CheckResult result = check();
        assertFound(result, AnomalyKind.G_SINGLE, t1, t2, t3);
        assertTrue(result.anomalies(AnomalyKind.STALE_READ).isEmpty(), result.report());
        assertTrue(result.anomalies(AnomalyKind.G_SINGLE).get(0).edges().stream()
                .anyMatch(e -> e.kind() == EdgeKind.REALTIME), result.report());
        assertValid(new ListAppendChecker(CheckerOptions.strict().exemptFromRealTime(Names.READ)).check(h.build()));
    }

    @Test
    void anUnknownOutcomeHasNoRealTimeSuccessors() {
        h.unknown(0, r(X), append(X, 1));          // its commit may land after the error was seen
        h.txn(1, r(X), append(X, 2));              // began after the error, did not see it
        h.finalRead(r(X, 2, 1));                   // the unknown one committed later
        assertValid(check());
    }

    @Test
    void acknowledgedWriteMissingAtTheEnd() {
        h.txn(0, r(X), append(X, 1));
        int t2 = h.txn(1, r(X, 1), append(X, 2));
        int end = h.finalRead(r(X, 1));
        assertFound(check(), AnomalyKind.LOST_WRITE, t2, end);
    }

    @Test
    void incompatibleOrders() {
        h.txn(0, r(X), append(X, 1));
        int t2 = h.invoke(1, Names.TXN, r(X), append(X, 2));
        int t3 = h.invoke(2, Names.TXN, r(X), append(X, 3));
        h.ok(1, r(X, 1), append(X, 2));
        h.ok(2, r(X, 1), append(X, 3));
        int t4 = h.read(3, r(X, 1, 2));
        int t5 = h.read(4, r(X, 1, 3));
        h.finalRead(r(X, 1, 2));
        CheckResult result = check();
        assertFound(result, AnomalyKind.INCOMPATIBLE_ORDER, t4, t5);
        assertFound(result, AnomalyKind.LOST_UPDATE, t2, t3);
    }

    @Test
    void garbageRead() {
        int t1 = h.read(0, r(X, 7));
        h.finalRead(r(X));
        assertFound(check(), AnomalyKind.GARBAGE_READ, t1);
    }

    @Test
    void duplicateElements() {
        h.txn(0, r(X), append(X, 1));
        int t2 = h.read(1, r(X, 1, 1));
        h.finalRead(r(X, 1));
        assertFound(check(), AnomalyKind.DUPLICATE_ELEMENTS, t2);
    }

    @Test
    void internalInconsistency() {
        h.txn(0, r(X), append(X, 1));
        int t2 = h.txn(1, r(X, 1), append(X, 2), r(X, 1));   // its own append is missing from its next read
        h.finalRead(r(X, 1, 2));
        assertFound(check(), AnomalyKind.INTERNAL, t2);
    }

    @Test
    void aCleanConcurrentHistoryWithReadsOfOwnWritesIsValid() {
        int a = h.invoke(0, Names.TXN, r(X), append(X, 1), r(X), append(X, 2), r(Y), append(Y, 1));
        int b = h.invoke(1, Names.READ, r(X), r(Y));
        h.ok(1, r(X), r(Y));
        h.ok(0, r(X), append(X, 1), r(X, 1), append(X, 2), r(Y), append(Y, 1));
        h.invoke(2, Names.TXN, r(Y), append(Y, 2));
        h.invoke(1, Names.READ, r(X), r(Y));
        h.ok(2, r(Y, 1), append(Y, 2));
        h.ok(1, r(X, 1, 2), r(Y, 1));
        h.finalRead(r(X, 1, 2), r(Y, 1, 2));
        assertTrue(a >= 0 && b >= 0);
        assertValid(check());
    }

    private CheckResult check() {
        return new ListAppendChecker(CheckerOptions.strict()).check(h.build());
    }

    private static void assertValid(CheckResult result) {
        assertTrue(result.valid(), result.report());
    }

    /** The kind is reported, and one of its findings involves exactly the given operations. */
    static void assertFound(CheckResult result, AnomalyKind kind, int... opIds) {
        assertFalse(result.valid(), result.report());
        List<Anomaly> found = result.anomalies(kind);
        assertFalse(found.isEmpty(), kind + " expected in:\n" + result.report());
        Set<Integer> expected = java.util.Arrays.stream(opIds).boxed().collect(Collectors.toSet());
        assertTrue(found.stream().anyMatch(a -> ids(a).equals(expected)),
                kind + " involving " + expected + " expected in:\n" + result.report());
    }

    private static Set<Integer> ids(Anomaly a) {
        return a.ops().stream().map(Op::id).collect(Collectors.toSet());
    }
}
