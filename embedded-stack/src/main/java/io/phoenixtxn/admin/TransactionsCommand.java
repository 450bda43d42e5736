package io.phoenixtxn.admin;

import io.phoenixtxn.tm.TmStatus;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code transactions}: the transactions in flight on the primary TM (and index builds' fences, which hold the GC
 * horizon like a transaction), oldest first, with their ages on the TM's clock.
 */
final class TransactionsCommand {
    private TransactionsCommand() {
    }

    static int run(AdminTarget target, PrintStream out) throws AdminException {
        TmReport report = TmReport.fetch(target);
        long now = report.number("now.ms");
        List<String> open = TmStatus.values(report.values(), TmStatus.OPEN);
        long count = report.number("open.count");
        out.println(count + " in flight" + (count > open.size() ? " (the " + open.size() + " oldest listed)" : "")
                + " on the TM at " + report.endpoint().address());
        if (!open.isEmpty()) {
            out.println(String.format("%-22s %10s  %s", "transaction id", "age", "began"));
        }
        for (String id : open) {
            long txId = Long.parseLong(id);
            out.println(String.format("%-22d %10s  %s", txId, StatusCommand.age(now, txId),
                    java.time.Instant.ofEpochMilli(io.phoenixtxn.snapshot.TimestampLayout.millisOf(txId))));
        }
        return 0;
    }
}
