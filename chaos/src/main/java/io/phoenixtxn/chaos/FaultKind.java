package io.phoenixtxn.chaos;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The faults the nemesis injects (issue 14), by the name the report prints. {@code --faults} takes these names, and
 * {@code client} for both client kills and {@code all} for everything.
 */
public enum FaultKind {
    /** kill -9 of the TM primary; the backup takes over after the lease; the killed TM comes back as backup. */
    TM("tm", Group.TM),
    /** SIGSTOP of the TM primary past its lease, then SIGCONT: it must have lost primacy and commit nothing. */
    PAUSE("pause", Group.TM),
    /** kill -9 of a region server serving the workload's tables: its regions move, its WAL is replayed. */
    RS("rs", Group.REGION_SERVER),
    /** kill -9 of the region server serving the commit table while commits are in flight. */
    COMMIT_TABLE_RS("ct", Group.REGION_SERVER),
    /** A client JVM halts right after the TM decided one of its commits, before the commit point. */
    CLIENT_AFTER_DECISION("client-decision", Group.CLIENT),
    /** A client JVM halts right after one of its commit points, before any commit cell. */
    CLIENT_AFTER_COMMIT_POINT("client-commit", Group.CLIENT),
    /** A region of a table in use is split, and a region (sometimes the commit table's) moved to another server. */
    SPLIT("split", Group.REGIONS),
    /** kill -9 of ZooKeeper, then a restart from its data. */
    ZK("zk", Group.ZOOKEEPER),
    /** CREATE INDEX, two checks of index against table, DROP INDEX, from another client while writers run. */
    INDEX("index", Group.DDL);

    /** Faults of one group are never mixed with each other (e.g. both region servers dead at once). */
    enum Group { TM, REGION_SERVER, CLIENT, REGIONS, ZOOKEEPER, DDL }

    private final String reportName;
    private final Group group;

    FaultKind(String reportName, Group group) {
        this.reportName = reportName;
        this.group = group;
    }

    public String reportName() {
        return reportName;
    }

    Group group() {
        return group;
    }

    /** Whether two faults may be in effect at the same time in a mixed step. */
    boolean mixesWith(FaultKind other) {
        return group != other.group;
    }

    /** The kinds a {@code --faults} list names: report names, {@code client} (both kills), {@code all}. */
    public static Set<FaultKind> parseList(String list) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (String raw : list.split(",")) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            switch (name) {
                case "all" -> kinds.addAll(EnumSet.allOf(FaultKind.class));
                case "client" -> kinds.addAll(EnumSet.of(CLIENT_AFTER_DECISION, CLIENT_AFTER_COMMIT_POINT));
                default -> kinds.add(named(name));
            }
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("--faults names no fault; use any of " + names());
        }
        return kinds;
    }

    static FaultKind named(String name) {
        for (FaultKind k : values()) {
            if (k.reportName.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("no fault '" + name + "'; faults: " + names());
    }

    static String names() {
        List<String> names = new ArrayList<>();
        for (FaultKind k : values()) {
            names.add(k.reportName);
        }
        names.add("client (client-decision and client-commit)");
        names.add("all");
        return String.join(", ", names);
    }
}
