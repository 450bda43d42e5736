package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.ha.HaConfig;

import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Which TM layout a configuration points at (ZooKeeper servers, chroot, base path), so that a region server can tell
 * without a network call whether an embedded TM's marker, registered by a client of the same JVM, guards the
 * region server's own cluster. Two ids are the same cluster when base path and chroot are equal and they share a
 * ZooKeeper server: a host:port is one ZooKeeper server, and the usual names of the loopback address are one host.
 * Different spellings of one host (a name and its address) count as different: the comparison can only err towards
 * "not the same", which costs a region server a TM answer, never correctness.
 */
record ClusterId(Set<String> servers, String chroot, String basePath) {
    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "::1", "0:0:0:0:0:0:0:1",
            "ip6-localhost");

    static ClusterId of(HaConfig config) {
        String quorum = config.quorum();
        if (quorum == null) {
            return new ClusterId(Set.of(), "", config.basePath());
        }
        String chroot = "";
        int slash = quorum.indexOf('/');
        if (slash >= 0) {
            chroot = quorum.substring(slash);
            quorum = quorum.substring(0, slash);
        }
        Set<String> servers = new HashSet<>();
        for (String server : quorum.split(",")) {
            String s = server.trim().toLowerCase(Locale.ROOT);
            if (!s.isEmpty()) {
                servers.add(normalised(s));
            }
        }
        return new ClusterId(Collections.unmodifiableSet(servers), chroot, config.basePath());
    }

    boolean sameAs(ClusterId other) {
        return basePath.equals(other.basePath) && chroot.equals(other.chroot)
                && !Collections.disjoint(servers, other.servers);
    }

    /** host:port with loopback names folded into one and IPv6 brackets dropped. */
    private static String normalised(String server) {
        int colon = server.lastIndexOf(':');
        String host = colon > 0 ? server.substring(0, colon) : server;
        String port = colon > 0 ? server.substring(colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return (LOOPBACK.contains(host) ? "loopback" : host) + port;
    }
}
