package io.phoenixtxn.chaos;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.OpType;
import io.phoenixtxn.history.check.AnomalyKind;
import io.phoenixtxn.history.check.CheckResult;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The outcome of a chaos run: per fault kind the number injected, the unavailability windows (max and median of the
 * single faults, the max of the mixed ones), the target and the verdict; per client history the checker's verdict;
 * the totals issue 14 asks for (transactions, anomalies, acknowledged commits present, bank totals); then every
 * fault in order with what was seen, and every problem. The run passes only when nothing is listed as a problem.
 */
final class ChaosReport {
    record HistoryVerdict(ClientGeneration client, History history, CheckResult result, List<String> problems) {
        boolean valid() {
            return result != null && result.valid() && problems.isEmpty();
        }
    }

    record FaultVerdict(FaultRecord record, Long windowAny, Long windowAffected, Long target, Boolean targetMet,
                        List<String> problems, List<String> notes) {
        boolean ok() {
            return problems.isEmpty();
        }
    }

    final ChaosOptions options;
    final long runNanos;
    final List<HistoryVerdict> histories = new ArrayList<>();
    final List<FaultVerdict> faults = new ArrayList<>();
    final List<String> runProblems = new ArrayList<>();
    final List<String> clusterEvents = new ArrayList<>();
    long readWriteCommits;

    ChaosReport(ChaosOptions options, long runNanos) {
        this.options = options;
        this.runNanos = runNanos;
    }

    boolean passed() {
        return runProblems.isEmpty() && histories.stream().allMatch(HistoryVerdict::valid)
                && faults.stream().allMatch(FaultVerdict::ok) && !faults.isEmpty()
                && options.faults().stream().allMatch(k -> faults.stream().anyMatch(f -> f.record().kind == k));
    }

    String render() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "chaos run: %.1f min of workloads, faults %s, %d clients x %d threads,"
                        + " seed %d, TM lease %d ms%n%n", runNanos / 6e10, faultNames(), options.clients(),
                options.threads(), options.seed(), options.leaseMs()));
        table(sb);
        sb.append('\n');
        totals(sb);
        sb.append("\nhistories (one per client JVM, its own tables):\n");
        for (HistoryVerdict v : histories) {
            sb.append(String.format(Locale.ROOT, "  %-8s %-12s %s%n", v.client().id(), v.client().workload,
                    v.result() == null ? "NOT CHECKED" : counts(v.result()) + "  " + (v.valid() ? "VALID" : "INVALID"
                            + (v.result().valid() ? "" : " " + v.result().kinds()))));
            v.problems().forEach(p -> sb.append("           PROBLEM: ").append(p).append('\n'));
        }
        for (HistoryVerdict v : histories) {
            if (v.result() != null && !v.result().valid()) {
                sb.append("\n== anomalies of ").append(v.client().id()).append(" (").append(v.client().history())
                        .append(")\n").append(v.result().report());
            }
        }
        sb.append("\nfaults in order (times on the run's clock; unavailability: to the first commit invoked after"
                + " the fault, by any client / by the clients it could stall):\n");
        for (FaultVerdict f : faults) {
            sb.append("  ").append(f.record().label()).append(": ").append(window(f.windowAny())).append(" / ")
                    .append(window(f.windowAffected()))
                    .append(f.target() == null ? "" : ", target " + RunClock.seconds(f.target()))
                    .append(f.ok() ? "" : "  FAILED").append('\n');
            f.notes().forEach(n -> sb.append("      ").append(n).append('\n'));
            f.problems().forEach(p -> sb.append("      PROBLEM: ").append(p).append('\n'));
        }
        if (!clusterEvents.isEmpty()) {
            sb.append("\ncluster events outside the faults:\n");
            clusterEvents.forEach(e -> sb.append("  ").append(e).append('\n'));
        }
        if (!runProblems.isEmpty()) {
            sb.append("\nproblems of the run:\n");
            runProblems.forEach(p -> sb.append("  PROBLEM: ").append(p).append('\n'));
        }
        sb.append("\nVERDICT: ").append(passed() ? "PASS" : "FAIL").append('\n');
        return sb.toString();
    }

    private void table(StringBuilder sb) {
        sb.append(String.format(Locale.ROOT, "%-16s %6s %6s %12s %12s %12s %-20s %s%n", "fault", "single", "mixed",
                "max", "median", "mixed max", "target", "verdict"));
        for (FaultKind kind : FaultKind.values()) {
            if (!options.faults().contains(kind)) {
                continue;
            }
            List<FaultVerdict> of = faults.stream().filter(f -> f.record().kind == kind).toList();
            List<Long> single = windows(of, false);
            List<Long> mixed = windows(of, true);
            long singles = of.stream().filter(f -> !f.record().mixed).count();
            long mixes = of.size() - singles;
            boolean ok = !of.isEmpty() && of.stream().allMatch(FaultVerdict::ok);
            sb.append(String.format(Locale.ROOT, "%-16s %6d %6d %12s %12s %12s %-20s %s%n", kind.reportName(), singles,
                    mixes, single.isEmpty() ? "-" : RunClock.seconds(Unavailability.max(single)),
                    single.isEmpty() ? "-" : RunClock.seconds(Unavailability.median(single)),
                    mixed.isEmpty() ? "-" : RunClock.seconds(Unavailability.max(mixed)), targetText(kind, of),
                    of.isEmpty() ? "NOT INJECTED" : ok ? "ok" : "FAILED"));
        }
        sb.append("(windows: from the fault to the first read-write commit, invoked after it, of a client the fault"
                + " could stall)\n");
    }

    private String targetText(FaultKind kind, List<FaultVerdict> of) {
        return switch (kind) {
            case TM, PAUSE -> "<= " + RunClock.seconds(options.leaseMs() * 1_000_000 + Judge.TM_TARGET_EXTRA_NANOS)
                    + metText(of);
            case RS, COMMIT_TABLE_RS -> {
                List<Long> recoveries = of.stream().filter(f -> f.record().recoveryNanos != null)
                        .map(f -> f.record().recoveryNanos).toList();
                yield "recovery+2 s" + metText(of) + (recoveries.isEmpty() ? ""
                        : " (recovery max " + RunClock.seconds(Unavailability.max(recoveries)) + ")");
            }
            default -> "";
        };
    }

    private static String metText(List<FaultVerdict> of) {
        List<FaultVerdict> judged = of.stream().filter(f -> f.targetMet() != null).toList();
        if (judged.isEmpty()) {
            return "";
        }
        long met = judged.stream().filter(FaultVerdict::targetMet).count();
        return met == judged.size() ? " met" : " MISSED " + (judged.size() - met) + "/" + judged.size();
    }

    private static List<Long> windows(List<FaultVerdict> of, boolean mixed) {
        return of.stream().filter(f -> f.record().mixed == mixed && f.windowAffected() != null)
                .map(FaultVerdict::windowAffected).toList();
    }

    private void totals(StringBuilder sb) {
        Map<OpType, Integer> counts = new EnumMap<>(OpType.class);
        Map<AnomalyKind, Integer> anomalies = new EnumMap<>(AnomalyKind.class);
        boolean lost = false;
        boolean bankBroken = false;
        for (HistoryVerdict v : histories) {
            if (v.result() == null) {
                continue;
            }
            v.history().counts().forEach((k, n) -> counts.merge(k, n, Integer::sum));
            v.result().kinds().forEach((k, n) -> {
                if (k.prohibited()) {
                    anomalies.merge(k, n, Integer::sum);
                }
            });
            lost |= !v.result().anomalies(AnomalyKind.LOST_WRITE).isEmpty();
            bankBroken |= Judge.breaksBankTotals(v.result());
        }
        int total = counts.values().stream().mapToInt(Integer::intValue).sum();
        sb.append(String.format(Locale.ROOT, "transactions: %d (%d ok, %d failed, %d unknown); %d read-write"
                        + " commits acknowledged%n", total, counts.getOrDefault(OpType.OK, 0),
                counts.getOrDefault(OpType.FAIL, 0), counts.getOrDefault(OpType.INFO, 0), readWriteCommits));
        int anomalyCount = anomalies.values().stream().mapToInt(Integer::intValue).sum();
        sb.append("anomalies: ").append(anomalyCount).append(anomalies.isEmpty() ? "" : " " + anomalies).append('\n');
        sb.append("every acknowledged commit present in the final reads: ").append(lost ? "NO" : "yes").append('\n');
        sb.append("bank totals invariant (every read, final balances = initial + ledger): ")
                .append(bankBroken ? "NO" : "yes").append('\n');
    }

    private String faultNames() {
        return options.faults().stream().sorted().map(FaultKind::reportName).collect(Collectors.joining(","));
    }

    /** The checker's first report line: "workload: N ok, N failed, N unknown operations". */
    private static String counts(CheckResult result) {
        String report = result.report();
        int nl = report.indexOf('\n');
        return nl < 0 ? report : report.substring(0, nl);
    }

    private static String window(Long nanos) {
        return nanos == null ? "no commit after it" : RunClock.seconds(nanos);
    }
}
