package io.phoenixtxn.chaos.client;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;
import io.phoenixtxn.history.record.HistoryFile;
import io.phoenixtxn.history.record.Recorder;
import io.phoenixtxn.history.workload.BankWorkload;
import io.phoenixtxn.history.workload.ConnectionSource;
import io.phoenixtxn.history.workload.Invocation;
import io.phoenixtxn.history.workload.ListAppendWorkload;
import io.phoenixtxn.history.workload.Outcomes;
import io.phoenixtxn.history.workload.Session;
import io.phoenixtxn.history.workload.Workload;
import io.phoenixtxn.history.workload.WorkloadRunner;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

/**
 * A client JVM of a chaos run (started by the driver, {@code io.phoenixtxn.chaos.ChaosMain}), on the cluster's client
 * classpath. Three modes:
 *
 * <pre>
 * run --workload list-append|bank --url URL --table T --history FILE --origin NANOS --threads N --seed S
 *     --stop-file F --ready-file F --halt-trigger F --halt-record F --decision-log F [--max-seconds S]
 *     [--property k=v ...]
 * final-read --workload W --url URL --table T --history FILE --origin NANOS [--property k=v ...]
 * index --url URL --table T --key K --column C --index I --hold-ms MS --result FILE --origin NANOS [--property ...]
 * </pre>
 *
 * {@code run} records its history event by event into FILE (on the driver's clock: {@code --origin} is the driver's
 * {@code System.nanoTime()} at the start of the run), stops when the stop file appears, then does its final read;
 * it halts itself when the driver arms its {@link HaltSwitch}. {@code final-read} continues the history of a client
 * that was killed with the final read it could not do. Exit status: 0 done, 2 usage or error, 3 the workload's setup
 * failed (nothing was recorded; the driver starts another client on fresh tables), 137 halted by the switch.
 */
public final class ChaosClientMain {
    static final int SETUP_FAILED = 3;
    private static final Duration FINAL_READ_FOR = Duration.ofSeconds(120);

    private ChaosClientMain() {
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("chaos client: " + e.getMessage());
            status = 2;
        } catch (Exception e) {
            System.err.println("chaos client: failed: " + e);
            e.printStackTrace(System.err);
            status = 2;
        }
        System.out.flush();
        System.err.flush();
        // Phoenix, HBase and Curator leave non-daemon threads behind
        Runtime.getRuntime().halt(status);
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("no mode (run, final-read or index)");
        }
        Args a = Args.parse(args);
        ParentWatch.start();
        return switch (args[0]) {
            case "run" -> runWorkload(a);
            case "final-read" -> finalRead(a);
            case "index" -> index(a);
            default -> throw new IllegalArgumentException("unknown mode '" + args[0] + "'");
        };
    }

    private static int runWorkload(Args a) throws Exception {
        long origin = a.number("origin");
        Path history = a.path("history");
        HaltSwitch halt = HaltSwitch.halting(a.path("halt-trigger"), a.path("halt-record"), origin);
        ProtocolHooks.install(new ChainedHooks(DecisionLog.appendingTo(a.path("decision-log"), origin), halt));
        Path ready = a.path("ready-file");
        Workload workload = new TrackedWorkload(workload(a.required("workload"), a.required("table")), () -> {
            try {
                Files.writeString(ready, Long.toString(System.nanoTime() - origin), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        WorkloadRunner.Config config = new WorkloadRunner.Config(List.of(ConnectionSource.jdbc(a.required("url"),
                a.properties)), (int) a.number("threads"), Duration.ofSeconds(a.number("max-seconds", 7200)), 0,
                a.number("seed"), FINAL_READ_FOR, Duration.ofSeconds(30));
        try (HistoryFile.Appender sink = HistoryFile.appender(history)) {
            Recorder recorder = new Recorder(origin, sink);
            WorkloadRunner runner = new WorkloadRunner(workload, config, recorder);
            Path stopFile = a.path("stop-file");
            Thread watcher = new Thread(() -> watch(halt, stopFile, runner), "chaos-client-watch");
            watcher.setDaemon(true);
            watcher.start();
            try {
                runner.run();
            } catch (SQLException e) {
                if (!Files.exists(ready)) {
                    System.err.println("chaos client: the workload's setup failed: " + Outcomes.describe(e));
                    return SETUP_FAILED;
                }
                throw e;
            }
        }
        return 0;
    }

    /** Arms the halt switch when its trigger appears; stops the runner when the stop file appears. */
    private static void watch(HaltSwitch halt, Path stopFile, WorkloadRunner runner) {
        boolean armed = false;
        while (true) {
            try {
                if (!armed) {
                    armed = halt.pollTrigger();
                }
                if (Files.exists(stopFile)) {
                    runner.requestStop();
                    return;
                }
                Thread.sleep(20); // polling files the driver writes: there is no cross-process event to wait on
            } catch (IOException e) {
                System.err.println("chaos client: cannot read the driver's files: " + e);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * The final read of a client that was killed: the history's torn tail (if any) is cut, then the read is
     * appended as a new process of the same history, retried until it succeeds or time is up.
     */
    private static int finalRead(Args a) throws Exception {
        long origin = a.number("origin");
        Path file = a.path("history");
        HistoryFile.Partial written = HistoryFile.readWritten(file);
        if (written.tornTail()) {
            cutTornTail(file);
        }
        History history = written.history();
        String name = a.required("workload");
        Workload workload = workload(name, a.required("table"));
        Invocation read = name.equals("list-append") ? listAppendFinalRead(history) : workload.finalRead();
        ConnectionSource source = ConnectionSource.jdbc(a.required("url"), a.properties);
        try (HistoryFile.Appender sink = HistoryFile.appender(file)) {
            Recorder recorder = Recorder.continuing(history, origin, sink);
            int process = recorder.unusedProcess();
            long end = System.nanoTime() + FINAL_READ_FOR.toNanos();
            while (true) {
                recorder.invoke(process, read.f(), read.value());
                try (Connection c = source.open()) {
                    c.setAutoCommit(false);
                    recorder.ok(process, workload.apply(new Session(c), read));
                    return 0;
                } catch (Exception e) {
                    recorder.fail(process, Outcomes.describe(e));
                    if (System.nanoTime() > end) {
                        System.err.println("chaos client: no final read within " + FINAL_READ_FOR.toSeconds() + " s: "
                                + e);
                        return 2;
                    }
                    Thread.sleep(1000); // back-off while the cluster recovers
                }
            }
        }
    }

    /** Every key the history's operations named: the dead client's key pool is gone with it. */
    static Invocation listAppendFinalRead(History history) {
        TreeSet<Long> keys = new TreeSet<>();
        for (Op op : history.ops()) {
            if (Names.TXN.equals(op.f()) || Names.READ.equals(op.f())) {
                op.invokeValue().forEach(m -> keys.add(m.key()));
            }
        }
        List<Mop> reads = new ArrayList<>();
        keys.forEach(k -> reads.add(Mop.read(k)));
        return new Invocation(Names.FINAL_READ, reads);
    }

    private static void cutTornTail(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int keep = bytes.length;
        while (keep > 0 && bytes[keep - 1] != '\n') {
            keep--;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(keep);
        }
    }

    private static int index(Args a) throws Exception {
        long origin = a.number("origin");
        ConnectionSource source = ConnectionSource.jdbc(a.required("url"), a.properties);
        try (Connection c = source.open()) {
            c.setAutoCommit(false);
            IndexDdl ddl = new IndexDdl(c, a.required("table"), a.required("key"), a.required("column"),
                    a.required("index"), () -> System.nanoTime() - origin);
            ddl.run(a.number("hold-ms"), a.path("result"));
        }
        return 0;
    }

    static Workload workload(String name, String table) {
        return switch (name) {
            case "list-append" -> new ListAppendWorkload(table, ListAppendWorkload.Options.defaults());
            case "bank" -> new BankWorkload(table, BankWorkload.Options.defaults());
            default -> throw new IllegalArgumentException("unknown workload '" + name + "' (list-append or bank)");
        };
    }

    /** {@code --name value} pairs; {@code --property k=v} may repeat. */
    static final class Args {
        final Map<String, String> values = new LinkedHashMap<>();
        final Properties properties = new Properties();

        static Args parse(String[] args) {
            Args a = new Args();
            for (int i = 1; i < args.length; i++) {
                String flag = args[i];
                if (!flag.startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("expected --name value, got '" + flag + "'");
                }
                String value = args[++i];
                if (flag.equals("--property")) {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--property takes key=value, got '" + value + "'");
                    }
                    a.properties.setProperty(value.substring(0, eq), value.substring(eq + 1));
                } else {
                    a.values.put(flag.substring(2), value);
                }
            }
            return a;
        }

        String required(String name) {
            String v = values.get(name);
            if (v == null) {
                throw new IllegalArgumentException("missing --" + name);
            }
            return v;
        }

        long number(String name) {
            String v = required(name);
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " takes a number, got '" + v + "'");
            }
        }

        long number(String name, long otherwise) {
            return values.containsKey(name) ? number(name) : otherwise;
        }

        Path path(String name) {
            return Path.of(required(name));
        }
    }
}
