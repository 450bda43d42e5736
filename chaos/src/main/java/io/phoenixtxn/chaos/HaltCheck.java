package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.HaltPoint;
import io.phoenixtxn.chaos.client.HaltRecord;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What must hold of a transaction whose client halted itself at a known point of its commit: halted after the TM's
 * decision, its commit point was never written, so none of its writes may ever be visible and the commit table must
 * not hold its commit; halted after the commit point, it is committed, so all of its writes must be in the final
 * read (readers resolve it through the commit table, the cleaner completes it) and the commit table holds its commit
 * or, once the cleaner wrote its commit cells, nothing. The history itself calls it unknown either way.
 */
final class HaltCheck {
    private HaltCheck() {
    }

    /** The problems found (empty: as expected), given the history with its final read and the commit-table entry. */
    static List<String> check(HaltRecord halt, History history, CommitTable.Entry entry) {
        List<String> problems = new ArrayList<>();
        Optional<Op> finalRead = history.ops().stream().filter(op -> op.isOk() && Names.FINAL_READ.equals(op.f()))
                .reduce((first, second) -> second);
        if (finalRead.isEmpty()) {
            problems.add("no final read: cannot tell whether transaction " + halt.txId() + " is visible");
        } else {
            List<String> visible = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            for (Mop m : halt.value()) {
                String write = describe(m);
                if (write == null) {
                    continue;
                }
                (isVisible(m, finalRead.get()) ? visible : missing).add(write);
            }
            if (halt.point() == HaltPoint.AFTER_TM_DECISION && !visible.isEmpty()) {
                problems.add("transaction " + halt.txId() + " halted before its commit point, yet the final read ("
                        + finalRead.get().name() + ") holds its writes " + visible);
            }
            if (halt.point() == HaltPoint.AFTER_COMMIT_POINT && !missing.isEmpty()) {
                problems.add("transaction " + halt.txId() + " halted after its commit point, yet the final read ("
                        + finalRead.get().name() + ") lacks its writes " + missing);
            }
        }
        if (halt.point() == HaltPoint.AFTER_TM_DECISION && entry.state() == CommitTable.Entry.State.COMMITTED) {
            problems.add("the commit table holds a commit of transaction " + halt.txId() + " (" + entry
                    + "), which halted before its commit point");
        }
        if (halt.point() == HaltPoint.AFTER_COMMIT_POINT && entry.state() == CommitTable.Entry.State.INVALIDATED) {
            problems.add("the commit table marks transaction " + halt.txId() + " invalid, which halted after its"
                    + " commit point");
        }
        return problems;
    }

    private static String describe(Mop m) {
        if (m.isAppend()) {
            return "append " + m.number() + " to key " + m.key();
        }
        if (Names.TRANSFER.equals(m.f())) {
            return "transfer " + m.key();
        }
        return null;
    }

    private static boolean isVisible(Mop write, Op finalRead) {
        for (Mop r : finalRead.value()) {
            if (write.isAppend() && r.isRead() && r.key() == write.key() && r.value() instanceof List<?>) {
                return r.list().contains(write.number());
            }
            if (Names.TRANSFER.equals(write.f()) && Names.LEDGER.equals(r.f()) && r.value() instanceof List<?>) {
                return r.list().contains(write.key());
            }
        }
        return false;
    }
}
