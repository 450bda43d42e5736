package io.phoenixtxn.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * What {@code bin/chaos} was asked to do.
 *
 * <pre>
 * bin/chaos --minutes N --faults tm,pause,rs,ct,client,split,zk,index|all [--clients K] [--threads T] [--seed S]
 *           [--lease-ms MS] [--targets enforce|report] [--name NAME] [--base DIR] [--out DIR]
 * </pre>
 *
 * @param duration      how long the workloads run (faults are injected until shortly before the end; the first pass,
 *                      every fault once, always completes, which may lengthen a very short run)
 * @param clients       client JVMs running workloads at a time (even: list-append, odd: bank)
 * @param threads       threads per client JVM
 * @param leaseMs       the TM primary's lease ({@code phoenix.txn.tm.lease.ms})
 * @param enforceTargets whether missing an unavailability target fails the run (CI's smoke run only reports them:
 *                      a shared 2-core machine's timing is not the product's)
 * @param base          where the cluster lives ({@code DIR/NAME}, as {@code bin/phoenix-txn-cluster})
 * @param out           the run's directory: histories, client logs, the nemesis log, the report
 */
public record ChaosOptions(Duration duration, Set<FaultKind> faults, int clients, int threads, long seed, long leaseMs,
                           boolean enforceTargets, String name, Path base, Path out) {
    static final String USAGE = String.join("\n",
            "usage: chaos --minutes N --faults LIST [--clients K] [--threads T] [--seed S] [--lease-ms MS]",
            "             [--targets enforce|report] [--name NAME] [--base DIR] [--out DIR]",
            "  --faults   comma-separated: " + FaultKind.names(),
            "  --minutes  how long the workloads run (--seconds N for shorter runs)",
            "  --clients  client JVMs (default 3: list-append, bank, list-append); --threads per client (default 4)",
            "  --targets  enforce (default): a missed unavailability target fails the run; report: only print it",
            "  --name, --base  the cluster (default: chaos in target/cluster); --out  the run's files",
            "  (default target/chaos/<name>)",
            "exit status: 0 every check passed, 1 a check failed (the report says which), 2 usage or error");

    public ChaosOptions {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("the run needs a positive duration (--minutes or --seconds)");
        }
        if (clients < 1 || clients > 16) {
            throw new IllegalArgumentException("--clients must be between 1 and 16, not " + clients);
        }
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("--threads must be between 1 and 64, not " + threads);
        }
        if (leaseMs < 200) {
            throw new IllegalArgumentException("--lease-ms must be at least 200, not " + leaseMs);
        }
        faults = Set.copyOf(faults);
    }

    static ChaosOptions parse(String[] args, Path repositoryRoot) {
        Duration duration = null;
        Set<FaultKind> faults = null;
        int clients = 3;
        int threads = 4;
        long seed = System.currentTimeMillis();
        long leaseMs = 1000;
        boolean enforce = true;
        String name = "chaos";
        Path base = null;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--minutes" -> duration = Duration.ofMillis((long) (decimal(value(args, ++i, a), a) * 60_000));
                case "--seconds" -> duration = Duration.ofMillis((long) (decimal(value(args, ++i, a), a) * 1000));
                case "--faults" -> faults = FaultKind.parseList(value(args, ++i, a));
                case "--clients" -> clients = (int) integer(value(args, ++i, a), a);
                case "--threads" -> threads = (int) integer(value(args, ++i, a), a);
                case "--seed" -> seed = integer(value(args, ++i, a), a);
                case "--lease-ms" -> leaseMs = integer(value(args, ++i, a), a);
                case "--targets" -> {
                    String v = value(args, ++i, a);
                    if (!v.equals("enforce") && !v.equals("report")) {
                        throw new IllegalArgumentException("--targets takes enforce or report, not '" + v + "'");
                    }
                    enforce = v.equals("enforce");
                }
                case "--name" -> name = value(args, ++i, a);
                case "--base" -> base = Path.of(value(args, ++i, a));
                case "--out" -> out = Path.of(value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
            }
        }
        if (duration == null || faults == null) {
            throw new IllegalArgumentException("--minutes (or --seconds) and --faults are required");
        }
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("--name '" + name + "': letters, digits, '.', '_' and '-' only");
        }
        Path root = repositoryRoot.toAbsolutePath().normalize();
        Path clusterBase = base != null ? base.toAbsolutePath() : root.resolve("target").resolve("cluster");
        Path runDir = out != null ? out.toAbsolutePath() : root.resolve("target").resolve("chaos").resolve(name);
        return new ChaosOptions(duration, faults, clients, threads, seed, leaseMs, enforce, name, clusterBase, runDir);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    private static double decimal(String s, String flag) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " takes a number, got '" + s + "'");
        }
    }

    private static long integer(String s, String flag) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " takes a whole number, got '" + s + "'");
        }
    }
}
