package io.phoenixtxn.history.check;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a bank history: fixed accounts with initial balances (the setup operation's {@code [w account
 * balance]}); transfers {@code [transfer id [from to amount]]} that also log their id in a ledger table in the same
 * transaction; readers that read every balance in one transaction; a final read of every balance and of the
 * ledger's ids.
 *
 * <ul>
 *   <li>every acknowledged read sees every account, a total equal to the initial total and no negative balance
 *       (a transfer never overdraws); a read spread over several snapshots, or money created or lost, breaks it;</li>
 *   <li>the final ledger holds every acknowledged transfer (else lost write), no failed one (G1a) and no id that was
 *       never invoked (garbage); unknown transfers may be there or not;</li>
 *   <li>the final balances equal the initial ones plus exactly the ledger's transfers, which makes the final state
 *       consistent with whichever unknown transfers committed, and exposes lost updates and torn transfers.</li>
 * </ul>
 */
public final class BankChecker implements Checker {
    @Override
    public CheckResult check(History history) {
        List<Op> ops = history.ops();
        Op setup = ops.stream().filter(op -> op.isOk() && Names.SETUP.equals(op.f())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("a bank history starts with an acknowledged "
                        + Names.SETUP + " operation holding the initial balances"));
        Map<Long, Long> initial = new TreeMap<>();
        for (Mop m : setup.value()) {
            initial.put(m.key(), m.number());
        }
        long total = initial.values().stream().mapToLong(Long::longValue).sum();
        Map<Long, Op> transfers = new HashMap<>();
        for (Op op : ops) {
            if (Names.TRANSFER.equals(op.f())) {
                Mop t = transferOf(op);
                if (transfers.put(t.key(), op) != null) {
                    throw new IllegalArgumentException("transfer id " + t.key() + " used twice (" + op.name() + ")");
                }
            }
        }
        List<Anomaly> anomalies = new ArrayList<>();
        for (Op op : ops) {
            if (op.isOk() && (Names.READ.equals(op.f()) || Names.FINAL_READ.equals(op.f()))) {
                checkBalances(op, initial, total, ops, anomalies);
            }
            if (op.isOk() && Names.FINAL_READ.equals(op.f())) {
                checkLedger(op, initial, transfers, anomalies);
            }
        }
        return new CheckResult("bank", history.counts(), anomalies);
    }

    private static void checkBalances(Op read, Map<Long, Long> initial, long total, List<Op> ops,
                                      List<Anomaly> anomalies) {
        Map<Long, Long> balances = balances(read);
        long sum = balances.values().stream().mapToLong(Long::longValue).sum();
        if (!balances.keySet().equals(initial.keySet()) || sum != total) {
            List<Op> involved = new ArrayList<>(concurrentTransfers(read, ops));
            involved.add(read);
            anomalies.add(new Anomaly(AnomalyKind.WRONG_TOTAL, read.name() + " read " + balances + ": total " + sum
                    + " over " + balances.size() + " accounts, expected " + total + " over " + initial.size()
                    + (involved.size() > 1 ? "; with the transfers that overlapped it" : ""), involved, List.of()));
        }
        List<Long> negative = balances.entrySet().stream().filter(e -> e.getValue() < 0).map(Map.Entry::getKey)
                .toList();
        if (!negative.isEmpty()) {
            anomalies.add(Anomaly.of(AnomalyKind.NEGATIVE_BALANCE, read.name() + " read negative balances of accounts "
                    + negative + ": " + balances, read));
        }
    }

    /** Transfers that may have committed while {@code read} ran: the context of a wrong total. */
    private static List<Op> concurrentTransfers(Op read, List<Op> ops) {
        List<Op> result = new ArrayList<>();
        for (Op op : ops) {
            if (Names.TRANSFER.equals(op.f()) && !op.isFail() && op.invokeTime() < read.completeTime()
                    && op.completeTime() > read.invokeTime()) {
                result.add(op);
            }
        }
        return result.size() <= 20 ? result : result.subList(0, 20);
    }

    private static void checkLedger(Op end, Map<Long, Long> initial, Map<Long, Op> transfers,
                                    List<Anomaly> anomalies) {
        List<Long> ids = end.value().stream().filter(m -> Names.LEDGER.equals(m.f())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(end.name() + " (final read) holds no ledger"))
                .list();
        Set<Long> ledger = new HashSet<>();
        Map<Long, Long> expected = new LinkedHashMap<>(initial);
        for (long id : ids) {
            if (!ledger.add(id)) {
                anomalies.add(Anomaly.of(AnomalyKind.DUPLICATE_ELEMENTS, "the ledger read by " + end.name()
                        + " holds transfer " + id + " twice", end));
                continue;
            }
            Op t = transfers.get(id);
            if (t == null) {
                anomalies.add(Anomaly.of(AnomalyKind.GARBAGE_READ, "the ledger read by " + end.name()
                        + " holds transfer " + id + ", which nobody invoked", end));
                continue;
            }
            if (t.isFail()) {
                anomalies.add(Anomaly.of(AnomalyKind.G1A, "the ledger read by " + end.name() + " holds transfer " + id
                        + " of " + t.name() + ", which failed (" + t.error() + ")", t, end));
            }
            List<Long> ft = transferOf(t).list();
            expected.merge(ft.get(0), -ft.get(2), Long::sum);
            expected.merge(ft.get(1), ft.get(2), Long::sum);
        }
        for (Op t : transfers.values()) {
            if (t.isOk() && t.completeTime() < end.invokeTime() && !ledger.contains(transferOf(t).key())) {
                anomalies.add(Anomaly.of(AnomalyKind.LOST_WRITE, t.name() + " (transfer " + transferOf(t).key()
                        + ") was acknowledged but is missing from the ledger read by " + end.name(), t, end));
            }
        }
        Map<Long, Long> actual = balances(end);
        if (!actual.equals(expected)) {
            Map<Long, String> diff = new TreeMap<>();
            for (Long account : union(actual.keySet(), expected.keySet())) {
                if (!java.util.Objects.equals(actual.get(account), expected.get(account))) {
                    diff.put(account, "read " + actual.get(account) + ", ledger says " + expected.get(account));
                }
            }
            anomalies.add(Anomaly.of(AnomalyKind.LEDGER_MISMATCH, end.name() + "'s balances disagree with the "
                    + ids.size() + " transfers of its ledger: " + diff, end));
        }
    }

    private static Mop transferOf(Op op) {
        for (Mop m : op.invokeValue()) {
            if (Names.TRANSFER.equals(m.f())) {
                if (m.list().size() != 3) {
                    throw new IllegalArgumentException(op.name() + ": a transfer is [transfer id [from to amount]]");
                }
                return m;
            }
        }
        throw new IllegalArgumentException(op.name() + " is a transfer without a [transfer id [from to amount]]");
    }

    private static Map<Long, Long> balances(Op read) {
        Map<Long, Long> balances = new TreeMap<>();
        for (Mop m : read.value()) {
            if (m.isRead()) {
                balances.put(m.key(), m.number());
            }
        }
        return balances;
    }

    private static Set<Long> union(Set<Long> a, Set<Long> b) {
        Set<Long> all = new java.util.TreeSet<>(a);
        all.addAll(b);
        return all;
    }
}
