package io.phoenixtxn.it.history;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.OpType;
import io.phoenixtxn.history.check.AnomalyKind;
import io.phoenixtxn.history.check.CheckResult;
import io.phoenixtxn.history.check.CheckerOptions;
import io.phoenixtxn.history.record.HistoryFile;
import io.phoenixtxn.history.record.Recorder;
import io.phoenixtxn.history.workload.BankWorkload;
import io.phoenixtxn.history.workload.BetweenReads;
import io.phoenixtxn.history.workload.ConnectionSource;
import io.phoenixtxn.history.workload.ListAppendWorkload;
import io.phoenixtxn.history.workload.ReadMode;
import io.phoenixtxn.history.workload.Workload;
import io.phoenixtxn.history.workload.WorkloadRunner;
import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The history checker against phoenix-txn on the shared minicluster: list-append registers and bank transfers run
 * by client threads over two Phoenix connection services (two metadata caches and transaction clients, as two
 * JVMs) must show no anomaly; the same workloads with the deliberately broken client, which reads each key in its
 * own transaction, must be reported (fractured reads, read skew, changed totals), which shows the checker can fail
 * on real histories. Histories are written to target/histories/ for inspection.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HistoryCheckIT {
    private static final int THREADS = 4;
    private static final List<ConnectionSource> TWO_SERVICES = List.of(SharedStack::connect,
            SharedStack::connectAsAnotherClient);

    @Test
    void listAppendHistoryOfPhoenixTxnHasNoAnomaly() throws Exception {
        Recorder recorder = new Recorder();
        Workload workload = new ListAppendWorkload(SharedStack.uniqueTable("HLIST"),
                ListAppendWorkload.Options.defaults());
        History history = run(workload, recorder, Duration.ofSeconds(6), 0, "list-append");
        CheckResult result = workload.checker(CheckerOptions.strict()).check(history);
        assertTrue(result.valid(), result.report());
        Map<OpType, Integer> counts = history.counts();
        assertTrue(count(history, Names.TXN, OpType.OK) > 20 && count(history, Names.READ, OpType.OK) > 10,
                "the run did work: " + counts);
        assertTrue(count(history, Names.TXN, OpType.FAIL) > 0, "conflicts happened (523 recorded as fail): " + counts);
        assertTrue(count(history, Names.FINAL_READ, OpType.OK) == 1, "final read: " + counts);
    }

    @Test
    void bankHistoryOfPhoenixTxnHasNoAnomaly() throws Exception {
        Recorder recorder = new Recorder();
        Workload workload = new BankWorkload(SharedStack.uniqueTable("HBANK"), BankWorkload.Options.defaults());
        History history = run(workload, recorder, Duration.ofSeconds(5), 0, "bank");
        CheckResult result = workload.checker(CheckerOptions.strict()).check(history);
        assertTrue(result.valid(), result.report());
        assertTrue(count(history, Names.TRANSFER, OpType.OK) > 10 && count(history, Names.READ, OpType.OK) > 10,
                "the run did work: " + history.counts());
        assertTrue(count(history, Names.FINAL_READ, OpType.OK) == 1, "final read: " + history.counts());
    }

    @Test
    void readsWithoutASnapshotAreReportedAsFracturedReads() throws Exception {
        Recorder recorder = new Recorder();
        // three keys, writers append to up to three: a write between two per-key reads usually spans both keys
        ListAppendWorkload.Options options = new ListAppendWorkload.Options(3, 30, 3, 0.4,
                ReadMode.PER_KEY_TRANSACTIONS, BetweenReads.awaitAcknowledged(recorder, Names.TXN, 1,
                Duration.ofSeconds(1)));
        Workload workload = new ListAppendWorkload(SharedStack.uniqueTable("HLISTBROKEN"), options);
        History history = run(workload, recorder, Duration.ofSeconds(4), 0, "list-append-broken");
        CheckResult result = workload.checker(CheckerOptions.strict()).check(history);
        assertFalse(result.valid(), "the broken client must be caught:\n" + result.report());
        assertTrue(!result.anomalies(AnomalyKind.FRACTURED_READ).isEmpty()
                && !result.anomalies(AnomalyKind.G_SINGLE).isEmpty(), result.report());
        System.out.println("broken list-append reads: " + result);
    }

    @Test
    void bankReadsWithoutASnapshotAreReportedAsChangedTotals() throws Exception {
        Recorder recorder = new Recorder();
        BankWorkload.Options options = new BankWorkload.Options(3, 100, 20, 0.4, ReadMode.PER_KEY_TRANSACTIONS,
                BetweenReads.awaitAcknowledged(recorder, Names.TRANSFER, 1, Duration.ofSeconds(1)));
        Workload workload = new BankWorkload(SharedStack.uniqueTable("HBANKBROKEN"), options);
        History history = run(workload, recorder, Duration.ofSeconds(4), 0, "bank-broken");
        CheckResult result = workload.checker(CheckerOptions.strict()).check(history);
        assertFalse(result.anomalies(AnomalyKind.WRONG_TOTAL).isEmpty(), "the broken client must be caught:\n"
                + result.report());
        assertTrue(result.kinds().keySet().equals(java.util.Set.of(AnomalyKind.WRONG_TOTAL)),
                "only the broken reads are wrong; the final read and ledger hold: " + result.report());
        System.out.println("broken bank reads: " + result);
    }

    private static History run(Workload workload, Recorder recorder, Duration duration, long ops, String name)
            throws Exception {
        WorkloadRunner.Config config = new WorkloadRunner.Config(TWO_SERVICES, THREADS, duration, ops, 42,
                Duration.ofSeconds(30), Duration.ofSeconds(30));
        History history = new WorkloadRunner(workload, config, recorder).run();
        Path dir = Path.of("target", "histories");
        Files.createDirectories(dir);
        HistoryFile.write(history, dir.resolve(name + ".jsonl"));
        System.out.printf("%s: %d operations %s%n", name, history.ops().size(), history.counts());
        return history;
    }

    private static long count(History history, String f, OpType type) {
        return history.ops().stream().filter(op -> f.equals(op.f()) && op.type() == type).count();
    }
}
