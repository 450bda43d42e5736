package io.phoenixtxn.cluster;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The command line of {@code bin/phoenix-txn-cluster} (the script builds, checks the JDK, and runs this class; its
 * {@code sqlline} command is the script's own). Exit status: 0 done, 1 the operation failed (the message says why
 * and what to do), 2 bad usage.
 */
public final class ClusterMain {
    static final String HOME_PROPERTY = "phoenix.txn.home";
    static final String DEFAULT_NAME = "default";
    static final int DEFAULT_REGION_SERVERS = 2;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    static final String USAGE = String.join("\n",
            "usage: phoenix-txn-cluster COMMAND [--name NAME] [--base DIR]",
            "  start [--region-servers N] [-Dkey=value ...]   ZooKeeper, 2 TM servers, a master and N (2) region",
            "                                  servers as separate processes; prints the JDBC URL. -D keys go to",
            "                                  every hbase-site.xml and the TM servers' tm-site.xml",
            "  status                          each role: pid, up/paused/dead, port; which TM is primary",
            "  stop                            stops every process (data and logs stay until the next start)",
            "  kill ROLE | pause ROLE | resume ROLE | restart ROLE",
            "                                  SIGKILL, SIGSTOP, SIGCONT, or stop and start again",
            "  url                             prints the JDBC URL",
            "  client-classpath                prints the classpath of a client JVM (our jars, Phoenix, HBase)",
            "  sqlline                         sqlline on the cluster (autocommit off)",
            "ROLE: zk, master, rs1..rsN, tm1, tm2, tm-primary, tm-backup (the TM ZooKeeper advertises as primary,",
            "and the other one). NAME: default '" + DEFAULT_NAME + "'; the cluster lives in DIR/NAME, DIR",
            "defaulting to target/cluster of the repository.");

    private ClusterMain() {
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(args, System.out);
        } catch (UsageException e) {
            System.err.println("phoenix-txn-cluster: " + e.getMessage());
            System.err.println(USAGE);
            status = 2;
        } catch (ClusterException e) {
            System.err.println("phoenix-txn-cluster: " + e.getMessage());
            status = 1;
        } catch (Exception e) {
            System.err.println("phoenix-txn-cluster: unexpected failure: " + e);
            e.printStackTrace(System.err);
            status = 1;
        }
        System.out.flush();
        // Curator and the HBase client leave non-daemon threads behind: exit explicitly.
        System.exit(status);
    }

    static int run(String[] args, PrintStream out) throws ClusterException {
        Arguments a = Arguments.parse(args);
        Path root = Path.of(System.getProperty(HOME_PROPERTY, "."));
        Path base = a.base != null ? Path.of(a.base) : root.resolve("target").resolve("cluster");
        ClusterPaths paths = new ClusterPaths(base.resolve(a.name));
        switch (a.command) {
            case "start" -> {
                new StartCommand(paths, a.name, Installation.at(root), out).run(a.regionServers, a.overrides);
                return 0;
            }
            case "help", "-h", "--help" -> {
                out.println(USAGE);
                return 0;
            }
            case "client-classpath" -> {
                out.println(RoleCommand.clientClasspath(paths, Installation.at(root)));
                return 0;
            }
            default -> {
                return onExisting(a, root, paths, out);
            }
        }
    }

    private static int onExisting(Arguments a, Path root, ClusterPaths paths, PrintStream out)
            throws ClusterException {
        ClusterState state = ClusterState.load(paths.state()).orElseThrow(() -> new ClusterException(
                "no cluster '" + a.name + "' in " + paths.dir() + "; start one with: phoenix-txn-cluster start"
                        + (DEFAULT_NAME.equals(a.name) ? "" : " --name " + a.name)));
        switch (a.command) {
            case "status" -> new StatusReport(paths, out).print(state);
            case "stop" -> new StopCommand(paths, out).run(state);
            case "url" -> {
                requireRunning(state, paths);
                out.println(state.jdbcUrl());
            }
            case "kill", "pause", "resume", "restart" -> {
                requireRunning(state, paths);
                RoleControl control = new RoleControl(paths, state, out);
                Role role = control.resolve(a.role(a.command));
                switch (a.command) {
                    case "kill" -> control.kill(role);
                    case "pause" -> control.pause(role);
                    case "resume" -> control.resume(role);
                    default -> control.restart(role, Installation.at(root));
                }
            }
            default -> throw new UsageException("unknown command '" + a.command + "'");
        }
        return 0;
    }

    private static void requireRunning(ClusterState state, ClusterPaths paths) throws ClusterException {
        if (state.status() != ClusterState.Status.RUNNING) {
            throw new ClusterException("cluster " + state.name() + " in " + paths.dir() + " is " + state.status()
                    + ", not RUNNING; start it with: phoenix-txn-cluster start");
        }
    }

    /** The parsed command line. */
    static final class Arguments {
        String command;
        final List<String> positional = new ArrayList<>();
        String name = DEFAULT_NAME;
        String base;
        int regionServers = DEFAULT_REGION_SERVERS;
        final Map<String, String> overrides = new LinkedHashMap<>();

        static Arguments parse(String[] args) {
            Arguments a = new Arguments();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--name" -> a.name = value(args, ++i, arg);
                    case "--base" -> a.base = value(args, ++i, arg);
                    case "--region-servers" -> {
                        String n = value(args, ++i, arg);
                        try {
                            a.regionServers = Integer.parseInt(n);
                        } catch (NumberFormatException e) {
                            throw new UsageException("--region-servers needs a number, not '" + n + "'");
                        }
                    }
                    default -> {
                        if (arg.startsWith("-D") && arg.indexOf('=') > 2) {
                            a.overrides.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
                        } else if (arg.startsWith("--")) {
                            throw new UsageException("unknown option '" + arg + "'");
                        } else if (a.command == null) {
                            a.command = arg;
                        } else {
                            a.positional.add(arg);
                        }
                    }
                }
            }
            if (a.command == null) {
                throw new UsageException("no command");
            }
            if (!NAME.matcher(a.name).matches()) {
                throw new UsageException("--name '" + a.name + "': letters, digits, '.', '_' and '-' only");
            }
            boolean takesRole = List.of("kill", "pause", "resume", "restart").contains(a.command);
            if (!takesRole && !a.positional.isEmpty()) {
                throw new UsageException(a.command + " takes no argument '" + a.positional.get(0) + "'");
            }
            if (!a.command.equals("start") && (!a.overrides.isEmpty() || a.regionServers != DEFAULT_REGION_SERVERS)) {
                throw new UsageException("-D and --region-servers go with start only");
            }
            return a;
        }

        String role(String command) {
            if (positional.size() != 1) {
                throw new UsageException(command + " needs one ROLE");
            }
            return positional.get(0);
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new UsageException(option + " needs a value");
            }
            return args[i];
        }
    }
}
