package io.phoenixtxn.stack;

import io.phoenixtxn.tm.TxnSettings;
import sqlline.SqlLine;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The launcher of the embedded stack (README's first command). Modes:
 * <pre>
 *   (none)        start the stack and open sqlline on it
 *   --demo        run a short, self-checking demo and exit (0 = every step behaved)
 *   --sql FILE    run a SQL script through sqlline and exit with its status
 *   --serve       keep the stack up, print its JDBC URL, stop on Ctrl-C / SIGTERM
 *   -Dkey=value   hbase-site.xml overrides (repeatable)
 * </pre>
 * A watchdog halts the JVM if start-up or shutdown hangs: a minicluster that dies half-way leaves non-daemon
 * threads behind that would otherwise keep the process alive forever.
 */
public final class PhoenixTxnStack {
    private static final long SHUTDOWN_LIMIT_S = 60;
    /** Set by bin/phoenix-txn-stack: the file every log line goes to (conf/phoenix-txn-log4j.properties). */
    static final String LOG_FILE_PROPERTY = "phoenix.txn.log.file";
    /** JLine's switch: true lets it fall back to a plain terminal without warning when there is no real one. */
    private static final String JLINE_DUMB = "org.jline.terminal.dumb";
    /** How often start-up says it is still going. */
    private static final long PROGRESS_EVERY_S = 10;
    /** Set when a signal (Ctrl-C, SIGTERM) ends --serve: the JVM is already exiting, System.exit would block. */
    private static volatile boolean signalled;
    private static final CountDownLatch CLOSED = new CountDownLatch(1);

    private PhoenixTxnStack() {
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (Exception e) {
            String logFile = System.getProperty(LOG_FILE_PROPERTY);
            if (signalled && logFile != null) {
                // Ctrl-C / SIGTERM of --serve: the JVM's shutdown races the minicluster's own; nothing to act on.
                org.slf4j.LoggerFactory.getLogger("phoenix-txn-stack.failure").warn("Stopping after a signal", e);
            } else if (logFile == null) {
                System.err.println("phoenix-txn stack failed: " + e);
                e.printStackTrace(System.err);
            } else {
                // One line on the console; the stack trace in the log file (a logger outside io.phoenixtxn: the
                // console shows only errors of those).
                System.err.println("phoenix-txn stack failed: " + e + " (stack trace in " + logFile + ")");
                org.slf4j.LoggerFactory.getLogger("phoenix-txn-stack.failure").warn("phoenix-txn stack failed", e);
            }
            status = 1;
        }
        if (signalled) {
            CLOSED.countDown(); // the shutdown hook waits for the stack to close, then the JVM exits
            return;
        }
        haltAfter(SHUTDOWN_LIMIT_S, "shutdown");
        System.exit(status);
    }

    static int run(String[] args) throws Exception {
        String mode = "sqlline";
        String sqlFile = null;
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--demo":
                    mode = "demo";
                    break;
                case "--serve":
                    mode = "serve";
                    break;
                case "--sql":
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--sql needs a file name");
                    }
                    mode = "sql";
                    sqlFile = args[++i];
                    if (!Files.isReadable(Path.of(sqlFile))) {
                        throw new IllegalArgumentException("--sql " + sqlFile + ": no such readable file");
                    }
                    break;
                case "-h":
                case "--help":
                    System.out.println("usage: phoenix-txn-stack [--demo | --sql FILE | --serve] [-Dkey=value ...]");
                    return 0;
                default:
                    if (args[i].startsWith("-D") && args[i].contains("=")) {
                        String kv = args[i].substring(2);
                        overrides.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                    } else {
                        throw new IllegalArgumentException("Unknown argument '" + args[i] + "'; try --help");
                    }
            }
        }
        // A -D argument of the launcher, else a JVM system property (how older scripts set it).
        long startupLimitS = TxnSettings.STACK_STARTUP_TIMEOUT_S.get(
                key -> overrides.containsKey(key) ? overrides.get(key) : System.getProperty(key));
        Thread startupWatchdog = haltAfter(startupLimitS, "start-up");
        if (System.getProperty(LOG_FILE_PROPERTY) != null) {
            System.err.println("Logging to " + System.getProperty(LOG_FILE_PROPERTY));
        }
        long started = System.nanoTime();
        System.err.println("Starting HBase minicluster + phoenix-txn TM + Phoenix (about 35 s)...");
        Thread ticker = progressTicker(started);
        try (EmbeddedStack stack = EmbeddedStack.start(overrides)) {
            System.err.println("  HBase minicluster up (" + secondsSince(started) + " s); connecting Phoenix (it"
                    + " creates its system tables on the first connection)...");
            try (java.sql.Connection ignored = stack.connect()) { // the first connection creates the system tables
                System.err.println("  Phoenix ready (" + secondsSince(started) + " s)");
            } finally {
                ticker.interrupt();
            }
            startupWatchdog.interrupt();
            System.out.println("JDBC URL: " + stack.jdbcUrl());
            switch (mode) {
                case "demo":
                    new Demo(stack, System.out).run();
                    return 0;
                case "sql":
                    return sqlScript(stack, sqlFile);
                case "serve":
                    return serve(stack);
                default:
                    return sqlline(stack, List.of());
            }
        }
    }

    /**
     * {@code --sql FILE}: sqlline runs it (stopping at the first failure, exit status 2). sqlline prints the stack
     * trace of every error in a script it runs at start-up, whatever its verbose option says; errors are one line
     * here too, as at the prompt ({@link StackTraceFilter}), unless the script asks for traces
     * ({@code !set verbose true}).
     */
    private static int sqlScript(EmbeddedStack stack, String sqlFile) throws Exception {
        boolean wantsTraces = Files.readString(Path.of(sqlFile)).toLowerCase(java.util.Locale.ROOT)
                .matches("(?s).*!set\\s+verbose\\s+true.*");
        if (wantsTraces) {
            return sqlline(stack, List.of("-f", sqlFile));
        }
        PrintStream console = System.err;
        StackTraceFilter filter = new StackTraceFilter(console);
        System.setErr(new PrintStream(filter, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            return sqlline(stack, List.of("-f", sqlFile));
        } finally {
            System.setErr(console);
            filter.close();
        }
    }

    private static int sqlline(EmbeddedStack stack, List<String> extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("-d", "org.apache.phoenix.jdbc.PhoenixDriver", "-u",
                stack.jdbcUrl(), "-n", "none", "-p", "none", "--color=true", "--fastConnect=false",
                // One-line errors; `!set verbose true` shows their stack traces.
                "--verbose=false", "--incremental=false", "--isolation=TRANSACTION_READ_COMMITTED",
                // Transactions span statements until !commit / COMMIT, as the README shows.
                "--autoCommit=false"));
        args.addAll(extra);
        if (System.console() == null && System.getProperty(JLINE_DUMB) == null) {
            // Input from a pipe or file, no terminal: JLine falls back to a plain one; say so without its warning.
            System.setProperty(JLINE_DUMB, "true");
        }
        SqlLine.Status status = SqlLine.start(args.toArray(new String[0]), null, false);
        return status == SqlLine.Status.OK ? 0 : 2;
    }

    private static int serve(EmbeddedStack stack) throws Exception {
        try (ServedTm served = ServedTm.start(stack)) {
            System.out.println("Serving. Other JVMs connect with the JDBC URL above and phoenix-txn's client jar on"
                    + " their classpath (plus phoenix.transactions.enabled=true); they find this TM at "
                    + served.address() + " through ZooKeeper. Stop with Ctrl-C.");
            System.out.println("SERVING " + stack.jdbcUrl());
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                signalled = true;
                stop.countDown();
                try {
                    CLOSED.await(SHUTDOWN_LIMIT_S, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "serve-stop"));
            stop.await();
            return 0;
        }
    }

    /** Says every {@value #PROGRESS_EVERY_S} s that start-up is still going; interrupt it when done. */
    private static Thread progressTicker(long startedNanos) {
        Thread ticker = new Thread(() -> {
            try {
                while (true) {
                    TimeUnit.SECONDS.sleep(PROGRESS_EVERY_S);
                    System.err.println("  ... still starting (" + secondsSince(startedNanos) + " s)");
                }
            } catch (InterruptedException done) {
                // start-up finished or failed
            }
        }, "startup-progress");
        ticker.setDaemon(true);
        ticker.start();
        return ticker;
    }

    private static long secondsSince(long startedNanos) {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
    }

    /** Halts the JVM if the phase does not finish in time; interrupt the returned thread to cancel. */
    private static Thread haltAfter(long seconds, String phase) {
        Thread watchdog = new Thread(() -> {
            try {
                TimeUnit.SECONDS.sleep(seconds);
                System.err.println("phoenix-txn stack: " + phase + " did not finish in " + seconds
                        + " s; halting the JVM");
                Runtime.getRuntime().halt(3);
            } catch (InterruptedException cancelled) {
                // phase finished
            }
        }, "watchdog-" + phase);
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }
}
