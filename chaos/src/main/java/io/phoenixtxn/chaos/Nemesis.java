package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.HaltPoint;
import io.phoenixtxn.chaos.client.HaltRecord;
import io.phoenixtxn.chaos.client.IndexResult;
import io.phoenixtxn.client.HBaseCommitTable;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Injects one fault and heals it (issue 14's list): kills, pauses and restarts through the cluster launcher's own
 * code, splits and moves through HBase's Admin, client kills through the clients' halt switches, index DDL through
 * a client JVM of its own. Each fault returns a {@link FaultRecord}; nothing here judges the histories.
 *
 * <p>Every wait is bounded; a fault whose expected effect does not show (no backup takes over, regions do not come
 * back, a paused primary does not step down) is a problem of that record, and the run fails.
 */
final class Nemesis {
    static final Duration TAKEOVER_MAX = Duration.ofSeconds(30);
    static final Duration REGION_RECOVERY_MAX = Duration.ofSeconds(180);
    static final Duration HALT_MAX = Duration.ofSeconds(60);
    /** How long a fault that needs a running client waits for one (a killed client's successor sets up first). */
    static final Duration CLIENT_WAIT_MAX = Duration.ofSeconds(120);
    static final Duration INDEX_MAX = Duration.ofSeconds(300);
    /** How long a move whose answer was lost may take to settle before the nemesis calls it failed. */
    static final Duration MOVE_SETTLE_MAX = Duration.ofSeconds(60);
    /** How long a region whose move answer was lost must stay where it was before the move counts as not done. */
    static final Duration MOVE_START_GRACE = Duration.ofSeconds(10);
    static final long INDEX_HOLD_MS = 5_000;
    static final long ZK_DOWN_MS = 1_000;
    /** Past the session timeout after a ZooKeeper restart: a server's abort on expiry takes a moment. */
    static final long ZK_SESSION_MARGIN_MS = 3_000;
    static final String COMMIT_TABLE = HBaseCommitTable.DEFAULT_NAME;
    /** What TmServerMain prints when a primary finds it lost its lease. */
    static final String STEPPED_DOWN = "no longer primary";

    private final ClusterControl cluster;
    private final ClientFleet fleet;
    private final ClientLauncher launcher;
    private final RunClock clock;
    private final ChaosOptions options;
    private final Random random;
    private final PrintStream log;
    private int indexFaults;
    /** Region servers a fault of the current step killed and will restart itself: no one else restarts them. */
    private final Set<String> underFault = ConcurrentHashMap.newKeySet();

    Nemesis(ClusterControl cluster, ClientFleet fleet, ClientLauncher launcher, RunClock clock, ChaosOptions options,
            Random random, PrintStream log) {
        this.cluster = cluster;
        this.fleet = fleet;
        this.launcher = launcher;
        this.clock = clock;
        this.options = options;
        this.random = random;
        this.log = log;
    }

    FaultRecord inject(FaultKind kind, boolean mixed) {
        FaultRecord r = new FaultRecord(kind, mixed);
        log.println(RunClock.seconds(clock.now()) + " >>> " + kind.reportName() + (mixed ? " (mixed)" : ""));
        try {
            switch (kind) {
                case TM -> killPrimaryTm(r);
                case PAUSE -> pausePrimaryTm(r);
                case RS -> killRegionServer(r, false);
                case COMMIT_TABLE_RS -> killRegionServer(r, true);
                case CLIENT_AFTER_DECISION -> haltClient(r, HaltPoint.AFTER_TM_DECISION);
                case CLIENT_AFTER_COMMIT_POINT -> haltClient(r, HaltPoint.AFTER_COMMIT_POINT);
                case SPLIT -> splitAndMove(r);
                case ZK -> restartZooKeeper(r);
                case INDEX -> createAndDropIndex(r);
                default -> throw new IllegalArgumentException(kind.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r.problem("interrupted");
        } catch (Exception e) {
            if (mixed && kind == FaultKind.SPLIT) {
                // the driver's own split/move/scan through HBase's Admin can fail while the other fault of the step
                // has a region server or ZooKeeper down: the nemesis could not act, the system did nothing wrong
                r.note("the split/move could not be carried out under the other fault: " + firstLine(e));
            } else {
                r.problem("the nemesis failed: " + e);
                e.printStackTrace(log);
            }
        }
        if (r.injectedAt < 0) {
            r.injectedAt = clock.now();
        }
        r.healedAt = clock.now();
        r.notes().forEach(n -> log.println("    " + n));
        r.problems().forEach(p -> log.println("    PROBLEM: " + p));
        log.println(RunClock.seconds(clock.now()) + " <<< " + r.label() + " healed");
        return r;
    }

    // ---- TM ----

    private void killPrimaryTm(FaultRecord r) throws Exception {
        String victim = awaitPrimary(r);
        if (victim == null) {
            return;
        }
        String backup = otherTm(victim);
        r.target = victim;
        r.injectedAt = clock.now();
        cluster.kill(victim);
        Long promoted = awaitUntil(() -> cluster.primaryTm().filter(backup::equals).isPresent(), TAKEOVER_MAX);
        if (promoted == null) {
            r.problem("the backup " + backup + " did not become primary within " + TAKEOVER_MAX.toSeconds() + " s");
        } else {
            r.note("the backup " + backup + " is advertised primary " + RunClock.seconds(promoted - r.injectedAt)
                    + " after the kill");
        }
        cluster.restart(victim);
        r.note(victim + " restarted (a backup now)");
    }

    private void pausePrimaryTm(FaultRecord r) throws Exception {
        String victim = awaitPrimary(r);
        if (victim == null) {
            return;
        }
        String backup = otherTm(victim);
        r.target = victim;
        r.injectedAt = clock.now();
        cluster.pause(victim);
        Long promoted = awaitUntil(() -> cluster.primaryTm().filter(backup::equals).isPresent(), TAKEOVER_MAX);
        if (promoted == null) {
            r.problem("the backup " + backup + " did not take over from the paused " + victim + " within "
                    + TAKEOVER_MAX.toSeconds() + " s");
        } else {
            r.note("the backup " + backup + " is primary " + RunClock.seconds(promoted - r.injectedAt)
                    + " after SIGSTOP");
            r.successorEpoch = cluster.primaryEpoch().orElse(null);
            if (r.successorEpoch == null) {
                r.problem("cannot read the epoch of " + backup + ", which took over: the paused primary's commits"
                        + " after its resume cannot be checked");
            }
        }
        // Paused past its lease: the backup took over only after it ran out; one more lease for good measure.
        Thread.sleep(options.leaseMs());
        Path console = cluster.console(victim);
        long offset = Files.exists(console) ? Files.size(console) : 0;
        long resumedAt = clock.now();
        cluster.resume(victim);
        r.resumedAt = resumedAt;
        r.note(victim + " resumed (SIGCONT) " + RunClock.seconds(resumedAt - r.injectedAt) + " after SIGSTOP");
        Long steppedDown = awaitUntil(() -> consoleSince(console, offset).contains(STEPPED_DOWN),
                Duration.ofSeconds(20));
        if (steppedDown == null) {
            r.problem("the resumed " + victim + " did not report that it lost primacy (its console " + console
                    + " has no '" + STEPPED_DOWN + "' after the resume)");
        } else {
            r.note(victim + " found its lease gone and stopped serving "
                    + RunClock.seconds(steppedDown - resumedAt) + " after SIGCONT");
        }
        Optional<String> primary = cluster.primaryTm();
        if (primary.isPresent() && primary.get().equals(victim)) {
            r.problem("the resumed " + victim + " is advertised primary again right after its pause");
        }
    }

    private String awaitPrimary(FaultRecord r) throws InterruptedException {
        String[] found = new String[1];
        Long at = awaitUntil(() -> {
            found[0] = cluster.primaryTm().orElse(null);
            return found[0] != null;
        }, TAKEOVER_MAX);
        if (at == null) {
            r.problem("no TM is advertised primary; nothing to " + r.kind.reportName());
            return null;
        }
        return found[0];
    }

    private static String otherTm(String tm) {
        return tm.equals("tm1") ? "tm2" : "tm1";
    }

    private static String consoleSince(Path console, long offset) {
        try {
            byte[] all = Files.readAllBytes(console);
            return offset >= all.length ? "" : new String(all, (int) offset, all.length - (int) offset,
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    // ---- region servers ----

    private void killRegionServer(FaultRecord r, boolean commitTable) throws Exception {
        List<ClientGeneration> clients = fleet.running();
        List<TableName> tables = new ArrayList<>();
        tables.add(TableName.valueOf(COMMIT_TABLE));
        clients.forEach(g -> g.tables().forEach(t -> tables.add(TableName.valueOf(t))));
        List<HRegionLocation> locations = new ArrayList<>();
        for (TableName t : tables) {
            locations.addAll(cluster.regions(t));
        }
        ServerName commitServer = null;
        Set<ServerName> workloadServers = new HashSet<>();
        for (HRegionLocation l : locations) {
            if (l.getServerName() == null) {
                continue;
            }
            if (l.getRegion().getTable().getNameAsString().equals(COMMIT_TABLE)) {
                commitServer = l.getServerName();
            } else {
                workloadServers.add(l.getServerName());
            }
        }
        ServerName victim;
        if (commitTable) {
            victim = commitServer;
        } else {
            List<ServerName> candidates = new ArrayList<>(workloadServers);
            candidates.sort(null);
            List<ServerName> withoutCommitTable = new ArrayList<>(candidates);
            withoutCommitTable.remove(commitServer);
            List<ServerName> pool = withoutCommitTable.isEmpty() ? candidates : withoutCommitTable;
            victim = pool.isEmpty() ? null : pool.get(random.nextInt(pool.size()));
        }
        if (victim == null) {
            r.problem("no region server serves " + (commitTable ? "the commit table" : "the workload's tables"));
            return;
        }
        String role = cluster.roleOf(victim);
        r.target = role;
        Set<String> affected = new HashSet<>();
        List<RegionInfo> lost = new ArrayList<>();
        boolean hitCommitTable = false;
        for (HRegionLocation l : locations) {
            if (victim.equals(l.getServerName())) {
                lost.add(l.getRegion());
                String table = l.getRegion().getTable().getNameAsString();
                hitCommitTable |= table.equals(COMMIT_TABLE);
                for (ClientGeneration g : clients) {
                    if (g.tables().contains(table)) {
                        affected.add(g.id());
                    }
                }
            }
        }
        r.affected = hitCommitTable ? null : affected;
        r.note(role + " (" + victim + ") served " + lost.size() + " regions of the run's tables"
                + (hitCommitTable ? ", the commit table's among them" : "") + ": " + describe(lost));
        if (!othersUp(role, r, "before the kill of " + role, role + " was not killed")) {
            return;
        }
        underFault.add(role);
        try {
            r.injectedAt = clock.now();
            cluster.kill(role);
            awaitReopened(r, role, victim, lost);
            cluster.restart(role);
            r.note(role + " restarted");
        } finally {
            underFault.remove(role);
        }
    }

    private void awaitReopened(FaultRecord r, String role, ServerName victim, List<RegionInfo> lost)
            throws InterruptedException {
        // A server that aborts on its own meanwhile (a ZooKeeper session that expired under load) is restarted once,
        // as an operator's supervisor would: the regions need somewhere to open.
        boolean[] keepUp = {true};
        Long recovered = awaitUntil(() -> {
            if (keepUp[0]) {
                keepUp[0] = othersUp(role, r, "while the regions of the killed " + role + " reopened", null);
            }
            return allOpenElsewhere(lost, victim);
        }, REGION_RECOVERY_MAX);
        if (recovered == null) {
            r.problem("the regions of the killed " + role + " were not open elsewhere within "
                    + REGION_RECOVERY_MAX.toSeconds() + " s");
        } else {
            r.recoveryNanos = recovered - r.injectedAt;
            r.note("HBase reopened its regions elsewhere " + RunClock.seconds(r.recoveryNanos) + " after the kill");
        }
    }

    /**
     * Every region server up except {@code except} and the ones another fault of the step holds down; one caller at
     * a time, so two faults of a mixed step never restart one server together. False if one could not be restarted
     * (noted on {@code r}).
     */
    private boolean othersUp(String except, FaultRecord r, String when, String consequence) {
        synchronized (underFault) {
            try {
                return LastServerGuard.allUp(cluster, role -> role.equals(except) || underFault.contains(role), r,
                        when, consequence);
            } catch (RuntimeException e) {
                r.problem("could not check or restart the other region servers " + when + ": " + e);
                return false;
            }
        }
    }

    /** Whether every region in {@code lost} (or its daughters) is open on a server other than {@code dead}. */
    private boolean allOpenElsewhere(List<RegionInfo> lost, ServerName dead) {
        try {
            Set<TableName> tables = new HashSet<>();
            lost.forEach(region -> tables.add(region.getTable()));
            for (TableName t : tables) {
                for (HRegionLocation l : cluster.regions(t)) {
                    if (l.getServerName() == null || l.getServerName().equals(dead)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // hbase:meta itself may be moving
        }
    }

    private static String describe(List<RegionInfo> regions) {
        List<String> names = new ArrayList<>();
        regions.forEach(r -> names.add(r.getTable().getNameAsString() + "/" + r.getEncodedName()));
        return String.join(", ", names);
    }

    // ---- clients ----

    private void haltClient(FaultRecord r, HaltPoint point) throws Exception {
        ClientGeneration g = fleet.randomRunning(random, any -> true, CLIENT_WAIT_MAX);
        if (g == null) {
            r.problem("no client is running to halt");
            return;
        }
        r.target = g.id();
        r.haltedClient = g.id();
        HaltRecord halt = fleet.halt(g, point, HALT_MAX);
        if (halt == null) {
            r.problem("client " + g.id() + " did not halt " + point.wireName() + " within " + HALT_MAX.toSeconds()
                    + " s (no commit of writes reached that point)");
            return;
        }
        r.halt = halt;
        r.injectedAt = halt.timeNanos();
        r.note("client " + g.id() + " halted " + point.wireName() + " of transaction " + halt.txId() + " (" + halt.function()
                + " " + halt.value() + ")");
    }

    // ---- regions ----

    private void splitAndMove(FaultRecord r) throws Exception {
        List<ClientGeneration> clients = new ArrayList<>(fleet.running());
        java.util.Collections.shuffle(clients, random);
        Admin admin = cluster.admin();
        Set<String> affected = new HashSet<>();
        boolean split = false;
        for (ClientGeneration g : clients) {
            for (String table : g.tables()) {
                byte[] key = middleRow(TableName.valueOf(table));
                if (key == null) {
                    continue;
                }
                HRegionLocation region;
                try (RegionLocator locator = cluster.hbase().getRegionLocator(TableName.valueOf(table))) {
                    region = locator.getRegionLocation(key, true);
                }
                if (Bytes.equals(region.getRegion().getStartKey(), key)) {
                    continue;
                }
                r.target = table;
                r.injectedAt = clock.now();
                try {
                    admin.splitRegionAsync(region.getRegion().getRegionName(), key).get(90, TimeUnit.SECONDS);
                } catch (IOException | java.util.concurrent.ExecutionException e) {
                    if (!String.valueOf(e.getMessage()).contains("NOT splittable")) {
                        throw e;
                    }
                    // HBase refuses to split a daughter until a compaction rewrote its reference files: not a fault
                    // of the system under test; another table is tried
                    r.note(table + "/" + region.getRegion().getEncodedName() + " is not splittable yet (a daughter"
                            + " of a recent split); trying another table");
                    continue;
                }
                r.note("split " + table + "/" + region.getRegion().getEncodedName() + " at "
                        + Bytes.toStringBinary(key) + " in " + RunClock.seconds(clock.now() - r.injectedAt));
                affected.add(g.id());
                split = true;
                break;
            }
            if (split) {
                break;
            }
        }
        if (!split) {
            r.note("no table in use had two rows to split between; moving only");
            r.injectedAt = clock.now();
        }
        move(r, admin, clients, affected);
        r.affected = affected;
    }

    /** Moves one region (of a table in use, or one time in three the commit table's) to another live server. */
    private void move(FaultRecord r, Admin admin, List<ClientGeneration> clients, Set<String> affected)
            throws IOException {
        String table;
        ClientGeneration owner = null;
        if (clients.isEmpty() || random.nextInt(3) == 0) {
            table = COMMIT_TABLE;
        } else {
            owner = clients.get(random.nextInt(clients.size()));
            table = owner.tables().get(random.nextInt(owner.tables().size()));
        }
        List<HRegionLocation> regions = cluster.regions(TableName.valueOf(table));
        if (regions.isEmpty()) {
            r.note("no region of " + table + " to move");
            return;
        }
        HRegionLocation region = regions.get(random.nextInt(regions.size()));
        List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
        servers.remove(region.getServerName());
        if (servers.isEmpty()) {
            r.note("no other live region server to move " + table + " to");
            return;
        }
        ServerName to = servers.get(random.nextInt(servers.size()));
        long start = clock.now();
        try {
            admin.move(region.getRegion().getEncodedNameAsBytes(), to);
        } catch (IOException e) {
            // The master runs the move to its end before it answers; on a loaded machine the driver's 5 s call
            // times out while the move goes on, and the retries then find the region in transition. The call's
            // outcome is unknown, so look: a region that settles on another server was moved.
            ServerName settled = settledServer(admin, table, region.getRegion(), region.getServerName());
            if (settled == null || settled.equals(region.getServerName())) {
                throw e;
            }
            r.note("the move's answer was lost (" + firstLine(e) + "); the region settled on "
                    + cluster.roleOf(settled));
            to = settled;
        }
        r.note("moved " + table + "/" + region.getRegion().getEncodedName() + " from "
                + cluster.roleOf(region.getServerName()) + " to " + cluster.roleOf(to) + " in "
                + RunClock.seconds(clock.now() - start));
        if (owner == null) {
            r.affected = null;
            affected.clear();
        } else {
            affected.add(owner.id());
        }
    }

    /**
     * The server hosting the region once it is out of transition, or null if it did not settle within
     * MOVE_SETTLE_MAX. A region still on {@code from} is only taken as settled there once it stayed there, out of
     * transition, for MOVE_START_GRACE: the master may not have started the move when the call's answer was lost.
     * Questions that fail while regions move are asked again.
     */
    private ServerName settledServer(Admin admin, String table, RegionInfo region, ServerName from) {
        long deadline = System.nanoTime() + MOVE_SETTLE_MAX.toNanos();
        boolean onSource = false;
        long onSourceSince = 0;
        while (System.nanoTime() < deadline) {
            try {
                boolean inTransition = admin.getClusterMetrics(java.util.EnumSet.of(
                                org.apache.hadoop.hbase.ClusterMetrics.Option.REGIONS_IN_TRANSITION))
                        .getRegionStatesInTransition().stream()
                        .anyMatch(s -> s.getRegion().getEncodedName().equals(region.getEncodedName()));
                if (inTransition) {
                    onSource = false; // the move has begun: wherever it settles decides
                } else {
                    for (HRegionLocation location : cluster.regions(TableName.valueOf(table))) {
                        if (location.getRegion().getEncodedName().equals(region.getEncodedName())
                                && location.getServerName() != null) {
                            if (!location.getServerName().equals(from)) {
                                return location.getServerName();
                            }
                            long now = System.nanoTime();
                            if (!onSource) {
                                onSource = true;
                                onSourceSince = now;
                            }
                            if (now - onSourceSince >= MOVE_START_GRACE.toNanos()) {
                                return from;
                            }
                        }
                    }
                }
            } catch (IOException e) {
                // asked again below
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    /** A row key from the middle of the table's first rows, or null if it has fewer than two. */
    private byte[] middleRow(TableName table) throws IOException {
        List<byte[]> rows = new ArrayList<>();
        try (Table t = cluster.hbase().getTable(table);
             ResultScanner scanner = t.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()).setLimit(2000)
                     .setCaching(500))) {
            for (Result row : scanner) {
                rows.add(row.getRow());
            }
        }
        return rows.size() < 2 ? null : rows.get(rows.size() / 2);
    }

    // ---- ZooKeeper ----

    private void restartZooKeeper(FaultRecord r) throws Exception {
        r.target = "zk";
        r.injectedAt = clock.now();
        cluster.kill("zk");
        Thread.sleep(ZK_DOWN_MS); // the outage itself: how long ZooKeeper stays down before its restart
        cluster.restart("zk");
        long restartedAt = clock.now();
        r.note("ZooKeeper down for " + RunClock.seconds(restartedAt - r.injectedAt) + " (kill -9, restart from its"
                + " data)");
        // A region server that did not reconnect within its session aborts (HBase's design) up to a session timeout
        // after the restart: wait that out, so the step ends with every server up and the next fault cannot take
        // the last one (the second 30-minute run).
        Thread.sleep(ChaosRun.ZK_SESSION_TIMEOUT_MS + ZK_SESSION_MARGIN_MS);
        othersUp("zk", r, RunClock.seconds(clock.now() - restartedAt)
                + " after the ZooKeeper restart (its session expired)", null);
    }

    // ---- index DDL ----

    private void createAndDropIndex(FaultRecord r) throws Exception {
        ClientGeneration g = fleet.randomRunning(random, any -> true, CLIENT_WAIT_MAX);
        if (g == null) {
            r.problem("no client is running whose table could be indexed");
            return;
        }
        int n = ++indexFaults;
        String index = g.table() + "_I" + n;
        Path dir = options.out().resolve("index").resolve(Integer.toString(n));
        Path result = dir.resolve("result.properties");
        r.target = g.table();
        r.indexedClient = g.id();
        r.affected = Set.of(g.id());
        long start = clock.now();
        Process p = launcher.index(dir, g.table(), g.keyColumn(), g.valueColumn(), index, INDEX_HOLD_MS, result);
        boolean ended = p.waitFor(INDEX_MAX.toSeconds(), TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
            r.problem("the index client did not finish within " + INDEX_MAX.toSeconds() + " s (" + dir + ")");
        }
        if (!Files.exists(result)) {
            r.injectedAt = start;
            r.problem("the index client left no result (exit " + (ended ? p.exitValue() : "killed") + "; see "
                    + dir.resolve("index.out") + ")");
            return;
        }
        IndexResult res = IndexResult.read(result);
        r.injectedAt = res.time("create.start", start);
        judgeIndexStep(r, res, "create", "CREATE INDEX " + index);
        for (String check : List.of("check1", "check2")) {
            if (res.get(check + ".problem") != null) {
                r.problem(check + " of " + index + ": " + res.get(check + ".problem"));
            } else if (res.get(check + ".error") != null) {
                String text = check + " of " + index + " could not run: " + res.get(check + ".error");
                if (r.mixed) {
                    r.note(text);
                } else {
                    r.problem(text);
                }
            } else if (res.get(check + ".rows") != null) {
                String planned = res.get(check + ".plannedAfterMs") == null ? ""
                        : "; Phoenix planned on the index after " + res.get(check + ".plannedAfterMs")
                                + " ms (its ACTIVE state lies in a later millisecond of the TM's timestamps)";
                r.note(check + ": index " + index + " equals " + g.table() + " in one snapshot (" + res.get(check
                        + ".rows") + " rows" + planned + ")");
            }
        }
        if (res.get("drop.start") != null) {
            r.dropStart = res.time("drop.start", -1);
            r.dropEnd = res.time("drop.end", r.dropStart);
            judgeIndexStep(r, res, "drop", "DROP INDEX " + index);
        }
    }

    private static void judgeIndexStep(FaultRecord r, IndexResult res, String step,
                                       String what) {
        if (res.get(step + ".error") != null) {
            String text = what + " failed: " + res.get(step + ".error");
            if (r.mixed) {
                r.note(text + " (under another fault)");
            } else {
                r.problem(text);
            }
        } else if (res.get(step + ".end") != null) {
            r.note(what + " took " + RunClock.seconds(res.time(step + ".end", 0) - res.time(step + ".start", 0)));
        }
    }

    private static String firstLine(Throwable e) {
        String text = String.valueOf(e);
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    /** Polls {@code condition} every 50 ms; the run-clock time it first held, or null after {@code max}. */
    Long awaitUntil(Supplier<Boolean> condition, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            if (condition.get()) {
                return clock.now();
            }
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(50); // polling other processes (ZooKeeper, hbase:meta, a console): no event to wait on
        }
    }
}
