package io.phoenixtxn.history.cli;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.check.BankChecker;
import io.phoenixtxn.history.check.CheckResult;
import io.phoenixtxn.history.check.Checker;
import io.phoenixtxn.history.check.CheckerOptions;
import io.phoenixtxn.history.check.ListAppendChecker;
import io.phoenixtxn.history.record.HistoryFile;
import io.phoenixtxn.history.record.Recorder;
import io.phoenixtxn.history.workload.BankWorkload;
import io.phoenixtxn.history.workload.BetweenReads;
import io.phoenixtxn.history.workload.ConnectionSource;
import io.phoenixtxn.history.workload.ListAppendWorkload;
import io.phoenixtxn.history.workload.ReadMode;
import io.phoenixtxn.history.workload.Workload;
import io.phoenixtxn.history.workload.WorkloadRunner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Command line: check a recorded history, or run a workload against JDBC URLs, record its history and check it.
 * Exit status: 0 valid, 1 anomalies found, 2 bad usage or an error (nothing checked). Running needs the JDBC
 * driver (Phoenix's client and phoenix-omid-provider) on the classpath.
 *
 * <pre>
 * check [--workload list-append|bank] [--realtime-exempt f1,f2] FILE
 * run --workload list-append|bank --url URL [--url URL2 ...] [--table NAME] [--threads 4] [--seconds 10]
 *     [--ops N] [--broken-reads] [--property key=value ...] [--out history.jsonl] [--realtime-exempt f1,f2]
 * </pre>
 */
public final class HistoryMain {
    static final int VALID = 0;
    static final int INVALID = 1;
    static final int ERROR = 2;

    private HistoryMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println(usage());
            return ERROR;
        }
        try {
            List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
            return switch (args[0]) {
                case "check" -> check(rest, out);
                case "run" -> runWorkload(rest, out);
                default -> throw new IllegalArgumentException("unknown command '" + args[0] + "'");
            };
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println(usage());
            return ERROR;
        } catch (Exception e) {
            err.println("error: " + e);
            return ERROR;
        }
    }

    private static int check(List<String> args, PrintStream out) throws Exception {
        Options o = Options.parse(args);
        if (o.positional.size() != 1) {
            throw new IllegalArgumentException("check takes one history file");
        }
        History history = HistoryFile.read(Path.of(o.positional.get(0)));
        String workload = o.workload != null ? o.workload : detect(history);
        return verdict(checker(workload, o.checkerOptions()).check(history), out);
    }

    private static int runWorkload(List<String> args, PrintStream out) throws Exception {
        Options o = Options.parse(args);
        if (o.workload == null || o.urls.isEmpty()) {
            throw new IllegalArgumentException("run needs --workload and at least one --url");
        }
        Recorder recorder = new Recorder();
        String table = o.table != null ? o.table : "HISTORY_" + o.workload.replace('-', '_').toUpperCase()
                + "_" + System.currentTimeMillis();
        Workload workload = workload(o.workload, table, o.brokenReads, recorder);
        List<ConnectionSource> sources = new ArrayList<>();
        for (String url : o.urls) {
            sources.add(ConnectionSource.jdbc(url, o.properties));
        }
        WorkloadRunner.Config config = new WorkloadRunner.Config(sources, o.threads,
                o.ops > 0 && o.seconds == null ? null : Duration.ofSeconds(o.seconds == null ? 10 : o.seconds),
                o.ops, System.nanoTime(), Duration.ofSeconds(60), Duration.ofSeconds(30));
        History history = new WorkloadRunner(workload, config, recorder).run();
        if (o.out != null) {
            HistoryFile.write(history, Path.of(o.out));
            out.println("history written to " + o.out + " (table " + table + ")");
        }
        return verdict(workload.checker(o.checkerOptions()).check(history), out);
    }

    private static int verdict(CheckResult result, PrintStream out) {
        out.print(result.report());
        return result.valid() ? VALID : INVALID;
    }

    /** A history with transfers is a bank history; anything else is list-append. */
    static String detect(History history) {
        return history.ops().stream().anyMatch(op -> Names.TRANSFER.equals(op.f())) ? "bank" : "list-append";
    }

    static Checker checker(String workload, CheckerOptions options) {
        return switch (workload) {
            case "list-append" -> new ListAppendChecker(options);
            case "bank" -> new BankChecker();
            default -> throw new IllegalArgumentException("unknown workload '" + workload
                    + "' (list-append or bank)");
        };
    }

    static Workload workload(String name, String table, boolean brokenReads, Recorder recorder) {
        ReadMode mode = brokenReads ? ReadMode.PER_KEY_TRANSACTIONS : ReadMode.SNAPSHOT;
        return switch (name) {
            case "list-append" -> new ListAppendWorkload(table, ListAppendWorkload.Options.defaults()
                    .withReadMode(mode, BetweenReads.awaitAcknowledged(recorder, Names.TXN, 1, Duration.ofSeconds(1))));
            case "bank" -> new BankWorkload(table, BankWorkload.Options.defaults()
                    .withReadMode(mode, BetweenReads.awaitAcknowledged(recorder, Names.TRANSFER, 1,
                            Duration.ofSeconds(1))));
            default -> throw new IllegalArgumentException("unknown workload '" + name + "' (list-append or bank)");
        };
    }

    static String usage() {
        return String.join("\n",
                "usage:",
                "  check [--workload list-append|bank] [--realtime-exempt f1,f2] FILE",
                "  run --workload list-append|bank --url URL [--url URL2 ...] [--table NAME] [--threads 4]",
                "      [--seconds 10] [--ops N] [--broken-reads] [--property key=value ...] [--out FILE]",
                "      [--realtime-exempt f1,f2]",
                "exit status: 0 valid, 1 anomalies found, 2 usage or error");
    }

    /** Parsed flags. */
    private static final class Options {
        String workload;
        String table;
        String out;
        Integer seconds;
        long ops;
        int threads = 4;
        boolean brokenReads;
        final List<String> urls = new ArrayList<>();
        final List<String> exempt = new ArrayList<>();
        final Properties properties = new Properties();
        final List<String> positional = new ArrayList<>();

        static Options parse(List<String> args) {
            Options o = new Options();
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                switch (a) {
                    case "--workload" -> o.workload = value(args, ++i, a);
                    case "--table" -> o.table = value(args, ++i, a);
                    case "--out" -> o.out = value(args, ++i, a);
                    case "--url" -> o.urls.add(value(args, ++i, a));
                    case "--seconds" -> o.seconds = number(value(args, ++i, a), a);
                    case "--ops" -> o.ops = number(value(args, ++i, a), a);
                    case "--threads" -> o.threads = number(value(args, ++i, a), a);
                    case "--broken-reads" -> o.brokenReads = true;
                    case "--realtime-exempt" -> o.exempt.addAll(Arrays.asList(value(args, ++i, a).split(",")));
                    case "--property" -> {
                        String kv = value(args, ++i, a);
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--property takes key=value, got '" + kv + "'");
                        }
                        o.properties.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    default -> {
                        if (a.startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + a);
                        }
                        o.positional.add(a);
                    }
                }
            }
            return o;
        }

        CheckerOptions checkerOptions() {
            return CheckerOptions.strict().exemptFromRealTime(exempt.toArray(new String[0]));
        }

        private static String value(List<String> args, int i, String flag) {
            if (i >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args.get(i);
        }

        private static int number(String s, String flag) {
            try {
                return Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " takes a number, got '" + s + "'");
            }
        }
    }
}
