package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TxnSettings;

import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Who may touch phoenix-txn's znodes: the ACL every node we create carries ({@code phoenix.txn.tm.zk.acl}), and the credentials a
 * session adds ({@code phoenix.txn.tm.zk.auth}). Unset, nodes are open (ZooKeeper's {@code world:anyone:cdrwa}), as before. With an
 * ACL such as {@code sasl:tm:cdrwa,world:anyone:r} only TM servers can move the lease, the timestamp reservation
 * and the fences, while clients and region servers (which only read the advertised primary) need no credentials.
 * Kerberos (SASL) sessions authenticate through the JVM's JAAS {@code Client} section, as HBase's own ZooKeeper
 * client does; {@code digest} needs {@code phoenix.txn.tm.zk.auth}.
 *
 * <p>Invariant: the ACL applies to every node a client configured with it creates, parents included (Curator's
 * ACL provider), so no TM node is ever created open on a cluster that configured one.
 */
public final class ZkAccess {
    /**
     * Comma-separated {@code scheme:id:perms} entries (perms from {@code cdrwa}), e.g.
     * {@code sasl:tm:cdrwa,world:anyone:r}.
     */
    public static final String ACL = TxnSettings.TM_ZK_ACL.key();
    /** {@code scheme:credentials} added to each ZooKeeper session, e.g. {@code digest:tm:secret}. */
    public static final String AUTH = TxnSettings.TM_ZK_AUTH.key();

    private static final Set<String> SCHEMES = Set.of("world", "auth", "digest", "ip", "sasl", "x509");
    private static final ZkAccess OPEN = new ZkAccess(null, null, null);

    private final List<ACL> acl;
    private final String authScheme;
    private final byte[] authCredentials;

    private ZkAccess(List<ACL> acl, String authScheme, byte[] authCredentials) {
        this.acl = acl;
        this.authScheme = authScheme;
        this.authCredentials = authCredentials;
    }

    public static ZkAccess open() {
        return OPEN;
    }

    /** Reads {@code phoenix.txn.tm.zk.acl} and {@code phoenix.txn.tm.zk.auth}; a malformed value fails naming its key and the expected form. */
    public static ZkAccess from(Function<String, String> lookup) {
        String aclText = TxnSettings.TM_ZK_ACL.get(lookup); // trimmed, null when unset or blank
        String authText = TxnSettings.TM_ZK_AUTH.get(lookup);
        List<ACL> acl = aclText == null ? null : parseAcl(aclText);
        String scheme = null;
        byte[] credentials = null;
        if (authText != null) {
            int colon = authText.indexOf(':');
            if (colon <= 0 || colon == authText.length() - 1) {
                throw new IllegalArgumentException(AUTH + " must be scheme:credentials (e.g. digest:tm:secret), got '"
                        + redact(authText) + "'");
            }
            scheme = authText.substring(0, colon);
            credentials = authText.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        }
        return acl == null && scheme == null ? OPEN : new ZkAccess(acl, scheme, credentials);
    }

    private static List<ACL> parseAcl(String text) {
        List<ACL> entries = new ArrayList<>();
        for (String raw : text.split(",")) {
            String entry = raw.trim();
            int first = entry.indexOf(':');
            int last = entry.lastIndexOf(':');
            if (first <= 0 || last == first || last == entry.length() - 1) {
                throw new IllegalArgumentException(ACL + " entry '" + entry + "' is not scheme:id:perms (e.g."
                        + " sasl:tm:cdrwa or world:anyone:r)");
            }
            String scheme = entry.substring(0, first);
            if (!SCHEMES.contains(scheme)) {
                throw new IllegalArgumentException(ACL + " entry '" + entry + "' names the unknown scheme '" + scheme
                        + "'; use one of " + SCHEMES);
            }
            entries.add(new ACL(perms(entry, entry.substring(last + 1)), new Id(scheme,
                    entry.substring(first + 1, last))));
        }
        if (entries.stream().noneMatch(e -> (e.getPerms() & ZooDefs.Perms.ADMIN) != 0)) {
            throw new IllegalArgumentException(ACL + "='" + text + "' gives no one the admin permission (a); then"
                    + " no one could change these nodes' ACL again. Give the TM servers' identity cdrwa");
        }
        // Not List.copyOf: ZooKeeper checks acl.contains(null), which immutable lists answer with an exception.
        return Collections.unmodifiableList(entries);
    }

    private static int perms(String entry, String letters) {
        int perms = 0;
        for (char c : letters.toCharArray()) {
            switch (c) {
                case 'c' -> perms |= ZooDefs.Perms.CREATE;
                case 'd' -> perms |= ZooDefs.Perms.DELETE;
                case 'r' -> perms |= ZooDefs.Perms.READ;
                case 'w' -> perms |= ZooDefs.Perms.WRITE;
                case 'a' -> perms |= ZooDefs.Perms.ADMIN;
                default -> throw new IllegalArgumentException(ACL + " entry '" + entry + "' has the permission '" + c
                        + "'; permissions are letters of cdrwa");
            }
        }
        return perms;
    }

    /** True when nodes are created with ZooKeeper's open ACL (nothing configured). */
    public boolean isOpen() {
        return acl == null;
    }

    /** The configured ACL, or null when open. */
    public List<ACL> acl() {
        return acl;
    }

    /** Applies the ACL (to every node the client creates, parents included) and the session's credentials. */
    void applyTo(CuratorFrameworkFactory.Builder builder) {
        if (acl != null) {
            builder.aclProvider(new ACLProvider() {
                @Override
                public List<ACL> getDefaultAcl() {
                    return acl;
                }

                @Override
                public List<ACL> getAclForPath(String path) {
                    return acl;
                }
            });
        }
        if (authScheme != null) {
            builder.authorization(authScheme, authCredentials.clone());
        }
    }

    /** Credentials never reach a log or an error message. */
    private static String redact(String auth) {
        int colon = auth.indexOf(':');
        return colon < 0 ? "<redacted>" : auth.substring(0, colon) + ":<redacted>";
    }

    @Override
    public String toString() {
        return "ZkAccess{acl=" + (acl == null ? "open" : acl) + ", auth=" + (authScheme == null ? "none"
                : authScheme + ":<redacted>") + "}";
    }
}
