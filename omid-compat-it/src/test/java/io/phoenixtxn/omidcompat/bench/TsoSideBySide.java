package io.phoenixtxn.omidcompat.bench;

import io.phoenixtxn.bench.tm.TmDriver;
import io.phoenixtxn.bench.tm.TxnSystem;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.RemoteTransactionManager;
import io.phoenixtxn.tm.net.StaticEndpointResolver;
import io.phoenixtxn.tm.net.TmServer;
import io.phoenixtxn.tm.net.TmServerConfig;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Apache Omid 1.1.2's TSO and our TM side by side, in one JVM and one run, driven by the same closed-loop driver
 * ({@link TmDriver}: begin + commit, FAST'17 power-law write sets of random rows, latency histogram, GC pauses, CPU
 * per transaction): Omid's TSO over loopback with its own client (legacy and low-latency mode), our TM over
 * loopback with our client (default connections), and our TM in process. Both TMs have a 4M-entry conflict table.
 * For each thread count every system gets its warm-up and its run in turn, so they see the same machine.
 *
 * <pre>
 *   TsoSideBySide [threads,...=1,2,8,64] [seconds=6] [alpha=2.0] [warmupSeconds=2] [systems=omid-legacy,omid-ll,ours-loopback,ours-inprocess]
 * </pre>
 */
public final class TsoSideBySide {
    /** Both conflict tables: our default, and Omid's map at the same size. */
    static final int CONFLICT_ENTRIES = TmConfig.DEFAULT_CONFLICT_ENTRIES;

    private TsoSideBySide() {
    }

    public static void main(String[] args) throws Exception {
        int[] threads = Arrays.stream((args.length > 0 ? args[0] : "1,2,8,64").split(","))
                .mapToInt(Integer::parseInt).toArray();
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 6;
        double alpha = args.length > 2 ? Double.parseDouble(args[2]) : 2.0;
        double warmup = args.length > 3 ? Double.parseDouble(args[3]) : 2;
        List<String> systems = List.of((args.length > 4 ? args[4]
                : "omid-legacy,omid-ll,ours-loopback,ours-inprocess").split(","));
        List<TmDriver.Result> results = run(threads, seconds, alpha, warmup, systems);
        System.out.println();
        System.out.println(table(results));
        System.out.flush();
        // Omid's TSO leaves non-daemon threads (its Netty groups, persistence executors) behind after stopAsync():
        // without an explicit exit the JVM would never end and a caller's pipe would never see the table.
        System.exit(0);
    }

    /** Runs every system at every thread count; prints each result as it comes. */
    static List<TmDriver.Result> run(int[] threads, double seconds, double alpha, double warmup,
                                     List<String> systems) throws Exception {
        List<TxnSystem> started = new ArrayList<>();
        try (TransactionManagerCore core = TransactionManagerCore.startInMemory(TmConfig.from(System::getProperty));
             TmServer server = TmServer.start(core, TmServerConfig.defaults().withPort(0));
             RemoteTransactionManager remote = RemoteTransactionManager.connect(new StaticEndpointResolver(
                     "127.0.0.1", server.address().getPort()), RemoteTmConfig.defaults())) {
            for (String system : systems) {
                switch (system) {
                    case "omid-legacy" -> started.add(OmidTso.start(CONFLICT_ENTRIES, false));
                    case "omid-ll" -> started.add(OmidTso.start(CONFLICT_ENTRIES, true));
                    case "ours-loopback" -> started.add(TxnSystem.of(remote, "phoenix-txn loopback ("
                            + RemoteTmConfig.DEFAULT_CONNECTIONS + " connections)"));
                    case "ours-inprocess" -> started.add(TxnSystem.of(core, "phoenix-txn in process"));
                    default -> throw new IllegalArgumentException("unknown system " + system
                            + "; use omid-legacy, omid-ll, ours-loopback, ours-inprocess");
                }
            }
            List<TmDriver.Result> results = new ArrayList<>();
            for (int t : threads) {
                for (TxnSystem system : started) {
                    if (warmup > 0) {
                        TmDriver.run(system, t, warmup, alpha);
                    }
                    TmDriver.Result result = TmDriver.run(system, t, seconds, alpha);
                    System.out.println(result);
                    results.add(result);
                }
            }
            return results;
        } finally {
            for (TxnSystem system : started) {
                system.close();
            }
        }
    }

    /** A Markdown table of the results. */
    static String table(List<TmDriver.Result> results) {
        StringBuilder out = new StringBuilder("| system | threads | alpha | tx/s | aborted | p50 us | p99 us | CPU us/tx"
                + " | GC pauses | load |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (TmDriver.Result r : results) {
            out.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %,.0f | %d | %.1f | %.1f | %.1f | %s | %s |%n",
                    r.system(), r.threads(), r.alpha(), r.txPerSecond(), r.aborted(), r.latency().percentile(50) / 1e3,
                    r.latency().percentile(99) / 1e3, r.cpuMicrosPerTx(), r.gc().replace("gc pauses=", ""), r.load()));
        }
        return out.toString();
    }
}
