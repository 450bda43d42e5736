package io.phoenixtxn.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One process of the cluster: {@code zk}, {@code master}, {@code rs1..rsN}, {@code tm1}, {@code tm2}. The name is
 * what the command line accepts, the directory the process lives in, and the marker on its command line.
 */
public record Role(String name, Kind kind) {

    /** What a role runs. */
    public enum Kind {
        ZOOKEEPER, MASTER, REGION_SERVER, TM
    }

    /** Aliases resolved through ZooKeeper: the TM advertised as primary, and the other one. */
    public static final String TM_PRIMARY = "tm-primary";
    public static final String TM_BACKUP = "tm-backup";

    public static final Role ZK = new Role("zk", Kind.ZOOKEEPER);
    public static final Role MASTER = new Role("master", Kind.MASTER);
    /** TM servers: an HA pair (primary and backup, decided by their lease in ZooKeeper). */
    public static final List<Role> TMS = List.of(new Role("tm1", Kind.TM), new Role("tm2", Kind.TM));

    public static Role regionServer(int index) {
        return new Role("rs" + index, Kind.REGION_SERVER);
    }

    /** Every role of a cluster with {@code regionServers} region servers, in start order. */
    public static List<Role> all(int regionServers) {
        List<Role> roles = new ArrayList<>();
        roles.add(ZK);
        roles.addAll(TMS);
        roles.add(MASTER);
        for (int i = 1; i <= regionServers; i++) {
            roles.add(regionServer(i));
        }
        return roles;
    }

    /** The role named {@code name} among {@code roles} (the two TM aliases are resolved by the caller). */
    public static Role named(String name, List<Role> roles) {
        String wanted = name.toLowerCase(Locale.ROOT);
        for (Role role : roles) {
            if (role.name.equals(wanted)) {
                return role;
            }
        }
        List<String> names = new ArrayList<>();
        roles.forEach(r -> names.add(r.name));
        names.add(TM_PRIMARY);
        names.add(TM_BACKUP);
        throw new UsageException("no role '" + name + "' in this cluster; roles: " + String.join(", ", names));
    }

    @Override
    public String toString() {
        return name;
    }
}
