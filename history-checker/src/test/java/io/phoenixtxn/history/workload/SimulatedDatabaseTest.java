package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.OpType;
import io.phoenixtxn.history.check.AnomalyKind;
import io.phoenixtxn.history.check.CheckResult;
import io.phoenixtxn.history.check.CheckerOptions;
import io.phoenixtxn.history.check.ListAppendChecker;
import io.phoenixtxn.history.record.Recorder;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The list-append generator and checker against an in-memory multi-version database, interleaving clients one
 * micro-op at a time: under snapshot isolation (first committer wins) every history is valid, whatever commits
 * are reported unknown and whether they applied; under read committed the checker finds fractured reads and read
 * skew; without the write-write check it finds lost updates. Thousands of interleavings no hand-written test covers.
 */
class SimulatedDatabaseTest {
    private enum Isolation { SNAPSHOT, READ_COMMITTED, NO_WRITE_CONFLICTS }

    @Test
    void snapshotIsolationHistoriesAreValidWithUnknownOutcomesEitherWay() {
        for (long seed = 1; seed <= 6; seed++) {
            History history = simulate(Isolation.SNAPSHOT, seed, 6000);
            CheckResult result = new ListAppendChecker(CheckerOptions.strict()).check(history);
            assertTrue(result.valid(), "seed " + seed + ": " + result.report());
            assertTrue(history.counts().getOrDefault(OpType.INFO, 0) > 10
                    && history.counts().getOrDefault(OpType.FAIL, 0) > 10, history.counts().toString());
        }
    }

    @Test
    void readCommittedShowsFracturedReadsAndReadSkew() {
        CheckResult result = new ListAppendChecker(CheckerOptions.strict())
                .check(simulate(Isolation.READ_COMMITTED, 11, 4000));
        assertFalse(result.anomalies(AnomalyKind.FRACTURED_READ).isEmpty(), result.report());
        assertFalse(result.anomalies(AnomalyKind.G_SINGLE).isEmpty(), result.report());
    }

    @Test
    void withoutWriteConflictsUpdatesAreLost() {
        CheckResult result = new ListAppendChecker(CheckerOptions.strict())
                .check(simulate(Isolation.NO_WRITE_CONFLICTS, 12, 4000));
        assertFalse(result.anomalies(AnomalyKind.LOST_UPDATE).isEmpty(), result.report());
    }

    @Test
    void aLongHistoryIsCheckedQuickly() {
        History history = simulate(Isolation.SNAPSHOT, 99, 120_000);
        long start = System.nanoTime();
        CheckResult result = new ListAppendChecker(CheckerOptions.strict()).check(history);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(result.valid(), result.report());
        assertTrue(millis < 20_000, history.ops().size() + " operations took " + millis + " ms");
        System.out.printf("checked %d operations in %d ms%n", history.ops().size(), millis);
    }

    /** Clients interleaved one micro-op at a time over a multi-version store. */
    private static History simulate(Isolation isolation, long seed, int steps) {
        Random random = new Random(seed);
        Store store = new Store(isolation);
        Recorder recorder = new Recorder();
        ListAppendWorkload generator = new ListAppendWorkload("SIM", new ListAppendWorkload.Options(5, 25, 3, 0.35,
                ReadMode.SNAPSHOT, BetweenReads.NOTHING));
        int clients = 5;
        Client[] running = new Client[clients];
        int[] process = new int[clients];
        for (int c = 0; c < clients; c++) {
            process[c] = c;
        }
        for (int step = 0; step < steps; step++) {
            int c = random.nextInt(clients);
            if (running[c] == null) {
                Invocation op = generator.next(random);
                recorder.invoke(process[c], op.f(), op.value());
                running[c] = new Client(op, store.begin());
                continue;
            }
            Client client = running[c];
            if (client.cursor < client.op.value().size()) {
                client.step(store);
                continue;
            }
            running[c] = null;
            boolean committed = store.commit(client.txn);
            if (random.nextInt(20) == 0) {
                recorder.info(process[c], "commit outcome unknown (actually " + (committed ? "committed" : "aborted")
                        + ")");
                process[c] += clients;
            } else if (committed) {
                recorder.ok(process[c], client.done);
            } else {
                recorder.fail(process[c], "write-write conflict");
            }
        }
        for (int c = 0; c < clients; c++) {
            if (running[c] != null) {
                recorder.info(process[c], "client stopped");
            }
        }
        Invocation end = generator.finalRead();
        recorder.invoke(-1, Names.FINAL_READ, end.value());
        Txn t = store.begin();
        List<Mop> seen = new ArrayList<>();
        for (Mop m : end.value()) {
            seen.add(m.withValue(store.read(t, m.key())));
        }
        recorder.ok(-1, seen);
        return recorder.history();
    }

    private static final class Client {
        final Invocation op;
        final Txn txn;
        final List<Mop> done = new ArrayList<>();
        int cursor;

        Client(Invocation op, Txn txn) {
            this.op = op;
            this.txn = txn;
        }

        void step(Store store) {
            Mop m = op.value().get(cursor++);
            if (m.isRead()) {
                done.add(m.withValue(store.read(txn, m.key())));
            } else {
                List<Long> next = new ArrayList<>(store.read(txn, m.key()));
                next.add(m.number());
                txn.writes.put(m.key(), next);
                done.add(m);
            }
        }
    }

    private static final class Txn {
        final long start;
        final Map<Long, List<Long>> writes = new LinkedHashMap<>();

        Txn(long start) {
            this.start = start;
        }
    }

    private record Version(long commitTs, List<Long> list) {
    }

    private static final class Store {
        private final Isolation isolation;
        private final Map<Long, List<Version>> versions = new HashMap<>();
        private long clock;

        Store(Isolation isolation) {
            this.isolation = isolation;
        }

        Txn begin() {
            return new Txn(++clock);
        }

        List<Long> read(Txn t, long key) {
            List<Long> own = t.writes.get(key);
            if (own != null) {
                return own;
            }
            long visibleUpTo = isolation == Isolation.READ_COMMITTED ? Long.MAX_VALUE : t.start;
            List<Long> result = List.of();
            for (Version v : versions.getOrDefault(key, List.of())) {
                if (v.commitTs() <= visibleUpTo) {
                    result = v.list();
                }
            }
            return result;
        }

        boolean commit(Txn t) {
            if (t.writes.isEmpty()) {
                return true;
            }
            if (isolation != Isolation.NO_WRITE_CONFLICTS) {
                for (long key : t.writes.keySet()) {
                    List<Version> vs = versions.getOrDefault(key, List.of());
                    if (!vs.isEmpty() && vs.get(vs.size() - 1).commitTs() > t.start) {
                        return false;
                    }
                }
            }
            long ts = ++clock;
            for (Map.Entry<Long, List<Long>> e : t.writes.entrySet()) {
                versions.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new Version(ts, e.getValue()));
            }
            return true;
        }
    }
}
