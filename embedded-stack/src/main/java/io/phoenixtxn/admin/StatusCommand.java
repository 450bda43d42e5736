package io.phoenixtxn.admin;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.TmStatus;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code status}: the primary TM (address, epoch), its lease, low-water mark, GC horizon, open transactions, fences
 * and connected clients, from its status report ({@link TmReport}).
 */
final class StatusCommand {
    private StatusCommand() {
    }

    static int run(AdminTarget target, PrintStream out) throws AdminException {
        TmReport report = TmReport.fetch(target);
        long now = report.number("now.ms");
        out.println("primary TM         " + report.endpoint().address() + " (advertised in ZooKeeper "
                + target.quorum() + ", base path " + target.haConfig().basePath() + ")");
        out.println("serving            " + report.get("serving")
                + (report.values().containsKey("stopped.because") ? " (" + report.get("stopped.because") + ")" : ""));
        long epochBase = report.number("epoch.base");
        out.println("epoch              " + (epochBase == 0 ? "0 (the first primary of this cluster)"
                : describe(epochBase)));
        out.println("lease              " + ("true".equals(report.get("lease.held")) ? "held" : "NOT held")
                + " (renewed every " + target.haConfig().leaseMs() * 8 / 10 + " ms)");
        out.println("last timestamp     " + describe(report.number("last.timestamp")));
        out.println("low-water mark     " + describe(report.number("low.water.mark")));
        long horizon = report.number("gc.horizon");
        out.println("GC horizon         " + (horizon < 0 ? "unknown (a new primary's grace period)"
                : TimestampLayout.millisOf(horizon) == 0 ? "none yet (no timestamp issued)"
                : describe(horizon) + ", " + age(now, horizon) + " behind the TM's clock"));
        List<String> open = TmStatus.values(report.values(), TmStatus.OPEN);
        out.println("open transactions  " + report.get("open.count") + (open.isEmpty() ? ""
                : " (oldest began " + age(now, Long.parseLong(open.get(0))) + " ago; see `transactions`)"));
        out.println("fences             " + report.get("fences.count"));
        for (String fence : TmStatus.values(report.values(), TmStatus.FENCE)) {
            String[] parts = fence.split(":");
            out.println("  table id " + parts[0] + " fenced at " + describe(Long.parseLong(parts[1])));
        }
        long connections = report.number("server.connections");
        out.println("connected clients  " + (connections < 0 ? "?" : Long.toString(connections - 1))
                + " (not counting this command)");
        out.println("conflict table     " + report.get("conflict.entries") + " entries; protocol version "
                + report.get("protocol.version"));
        return 0;
    }

    static String describe(long ts) {
        return TimestampLayout.millisOf(ts) <= 0 ? ts + " (none issued yet)" : ts + " (" + java.time.Instant.ofEpochMilli(TimestampLayout.millisOf(ts))
                + ")";
    }

    /** How long before {@code nowMillis} (the TM's clock) the timestamp's millisecond was. */
    static String age(long nowMillis, long ts) {
        long ms = Math.max(0, nowMillis - TimestampLayout.millisOf(ts));
        return ms < 10_000 ? ms + " ms" : ms < 600_000 ? ms / 1000 + " s" : ms / 60_000 + " min";
    }
}
