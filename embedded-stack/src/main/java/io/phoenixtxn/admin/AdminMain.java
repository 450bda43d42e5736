package io.phoenixtxn.admin;

import io.phoenixtxn.client.TxnClientConfig;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/phoenix-txn-admin}: operators' commands on a running cluster (or embedded stack).
 * <pre>
 *   phoenix-txn-admin [--zk HOST:PORT[,HOST:PORT...]] [-c hbase-site.xml] [-Dkey=value ...] COMMAND
 *     status                      the primary TM: epoch, lease, low-water mark, GC horizon, fences, clients
 *     transactions                transactions in flight, oldest first
 *     commit-table                committed entries of the commit table, the oldest and its age
 *     clean [--older-than-ms N]   run the commit-table cleaner now (default grace: phoenix.txn.cleaner.interval.ms)
 *     verify-index TABLE INDEX    check that an index holds exactly what its table holds
 * </pre>
 * Exit status: 0 done, 1 a check found a problem (an index differs, an entry could not be cleaned), 2 the command
 * could not run (its one-line error names the cause and the fix: ZooKeeper, HBase or the TM unreachable, bad usage).
 */
public final class AdminMain {
    static final int OK = 0;
    static final int FAILED_CHECK = 1;
    static final int ERROR = 2;
    private static final String USAGE = "usage: phoenix-txn-admin [--zk HOST:PORT] [-c hbase-site.xml]"
            + " [-Dkey=value ...] status | transactions | commit-table | clean [--older-than-ms N] | verify-index TABLE INDEX";

    private AdminMain() {
    }

    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        // HBase and Curator leave non-daemon threads behind; the command is done.
        Runtime.getRuntime().halt(status);
    }

    /** Runs one command; never throws: errors are one line on {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Configuration conf = HBaseConfiguration.create();
        List<String> command = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--zk") && i + 1 < args.length) {
                    zk(conf, args[++i]);
                } else if (arg.equals("-c") && i + 1 < args.length) {
                    File file = new File(args[++i]);
                    if (!file.canRead()) {
                        throw new AdminException("-c " + file + ": no such readable file");
                    }
                    conf.addResource(new org.apache.hadoop.fs.Path(file.getAbsolutePath()));
                } else if (arg.startsWith("-D") && arg.contains("=")) {
                    conf.set(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
                } else if (arg.equals("-h") || arg.equals("--help")) {
                    out.println(USAGE);
                    return OK;
                } else {
                    command.add(arg);
                }
            }
            if (command.isEmpty()) {
                throw new AdminException("no command given; " + USAGE);
            }
            try (AdminTarget target = new AdminTarget(conf)) {
                return dispatch(target, command, out, err);
            }
        } catch (AdminException e) {
            err.println("phoenix-txn-admin: " + e.getMessage());
            return ERROR;
        } catch (IllegalArgumentException e) {
            err.println("phoenix-txn-admin: bad configuration: " + AdminTarget.oneLine(e));
            return ERROR;
        } catch (RuntimeException e) {
            err.println("phoenix-txn-admin: unexpected failure: " + AdminTarget.oneLine(e)
                    + " (run with -Dlog4j.rootLogger=DEBUG,console for details)");
            return ERROR;
        }
    }

    private static int dispatch(AdminTarget target, List<String> command, PrintStream out, PrintStream err)
            throws AdminException {
        String name = command.get(0);
        List<String> rest = command.subList(1, command.size());
        switch (name) {
            case "status":
                expectArguments(name, rest, 0);
                return StatusCommand.run(target, out);
            case "transactions":
                expectArguments(name, rest, 0);
                return TransactionsCommand.run(target, out);
            case "commit-table":
                expectArguments(name, rest, 0);
                return CommitTableCommand.show(target, out);
            case "clean":
                return CommitTableCommand.clean(target, graceMs(target, rest), out);
            case "verify-index":
                expectArguments(name, rest, 2);
                return VerifyIndexCommand.run(target, rest.get(0), rest.get(1), out, err);
            default:
                throw new AdminException("unknown command '" + name + "'; " + USAGE);
        }
    }

    private static long graceMs(AdminTarget target, List<String> rest) throws AdminException {
        if (rest.isEmpty()) {
            long interval = TxnClientConfig.from(target.conf()::get).cleanerIntervalMs();
            return interval > 0 ? interval : TxnClientConfig.DEFAULT_CLEANER_INTERVAL_MS;
        }
        if (rest.size() == 2 && rest.get(0).equals("--older-than-ms")) {
            try {
                long ms = Long.parseLong(rest.get(1));
                if (ms >= 0) {
                    return ms;
                }
            } catch (NumberFormatException e) {
                // falls through to the usage error
            }
        }
        throw new AdminException("clean takes [--older-than-ms N] with N >= 0 milliseconds, got " + rest);
    }

    private static void expectArguments(String command, List<String> rest, int count) throws AdminException {
        if (rest.size() != count) {
            throw new AdminException(command + " takes " + (count == 0 ? "no arguments" : count + " arguments")
                    + ", got " + rest + "; " + USAGE);
        }
    }

    /** {@code host:port,...}: HBase's quorum and client port, as a JDBC URL names them. */
    private static void zk(Configuration conf, String quorum) throws AdminException {
        List<String> hosts = new ArrayList<>();
        String port = null;
        for (String server : quorum.split(",")) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0 || (port != null && !port.equals(server.substring(colon + 1)))) {
                throw new AdminException("--zk " + quorum + ": give HOST:PORT[,HOST:PORT...] with one port, e.g."
                        + " localhost:2181");
            }
            hosts.add(server.substring(0, colon));
            port = server.substring(colon + 1);
        }
        conf.set(HConstants.ZOOKEEPER_QUORUM, String.join(",", hosts));
        conf.set(HConstants.ZOOKEEPER_CLIENT_PORT, port);
        conf.unset("hbase.client.zookeeper.quorum");
        conf.set(io.phoenixtxn.tm.ha.HaConfig.ZK_QUORUM, quorum);
    }
}
