package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.ConfigValues;
import io.phoenixtxn.tm.TxnSettings;

import org.apache.curator.utils.PathUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Settings of the ZooKeeper-based primary/backup TM and of its discovery by clients, read from hbase-site.xml-style
 * keys declared in {@link TxnSettings}. HA is on when a quorum is known: {@code phoenix.txn.tm.zk.quorum}, or else
 * HBase's own {@value #HBASE_QUORUM} (plus {@value #HBASE_CLIENT_PORT}), so a TM next to an HBase cluster needs no
 * extra setting.
 */
public final class HaConfig {
    public static final String ZK_QUORUM = TxnSettings.TM_ZK_QUORUM.key();
    public static final String HBASE_QUORUM = "hbase.zookeeper.quorum";
    /** HBase's client-side quorum; Phoenix 5.2 puts the JDBC URL's hosts:port here, ahead of the server key. */
    public static final String HBASE_CLIENT_QUORUM = "hbase.client.zookeeper.quorum";
    public static final String HBASE_CLIENT_PORT = "hbase.zookeeper.property.clientPort";
    public static final String ZK_PATH = TxnSettings.TM_ZK_PATH.key();
    public static final String LEASE_MS = TxnSettings.TM_LEASE_MS.key();
    public static final String ZK_CONNECT_TIMEOUT_MS = TxnSettings.TM_ZK_CONNECT_TIMEOUT_MS.key();
    public static final String ZK_SESSION_TIMEOUT_MS = TxnSettings.TM_ZK_SESSION_TIMEOUT_MS.key();
    public static final String DISCOVERY_TIMEOUT_MS = TxnSettings.TM_DISCOVERY_TIMEOUT_MS.key();
    public static final String ADVERTISED_HOST = TxnSettings.TM_ADVERTISED_HOST.key();

    public static final String DEFAULT_ZK_PATH = TxnSettings.TM_ZK_PATH.defaultValue();
    public static final long DEFAULT_LEASE_MS = TxnSettings.TM_LEASE_MS.defaultValue();
    public static final long DEFAULT_ZK_CONNECT_TIMEOUT_MS = TxnSettings.TM_ZK_CONNECT_TIMEOUT_MS.defaultValue();
    public static final long DEFAULT_ZK_SESSION_TIMEOUT_MS = TxnSettings.TM_ZK_SESSION_TIMEOUT_MS.defaultValue();
    public static final long DEFAULT_DISCOVERY_TIMEOUT_MS = TxnSettings.TM_DISCOVERY_TIMEOUT_MS.defaultValue();
    static final int DEFAULT_ZK_CLIENT_PORT = 2181;

    private final String quorum;
    private final String quorumKey;
    private final String basePath;
    private final long leaseMs;
    private final long connectTimeoutMs;
    private final long sessionTimeoutMs;
    private final long discoveryTimeoutMs;
    private final String advertisedHost;
    private final ZkAccess access;

    private HaConfig(String quorum, String quorumKey, String basePath, long leaseMs, long connectTimeoutMs,
                     long sessionTimeoutMs, long discoveryTimeoutMs, String advertisedHost, ZkAccess access) {
        this.quorum = quorum;
        this.quorumKey = quorumKey;
        this.basePath = basePath;
        this.leaseMs = leaseMs;
        this.connectTimeoutMs = connectTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.discoveryTimeoutMs = discoveryTimeoutMs;
        this.advertisedHost = advertisedHost;
        this.access = access;
    }

    /** Reads every key through {@code lookup} (null = default); a bad value fails naming its key. */
    public static HaConfig from(Function<String, String> lookup) {
        String quorum = TxnSettings.TM_ZK_QUORUM.get(lookup);
        String quorumKey = ZK_QUORUM;
        if (quorum == null && trimmed(lookup.apply(HBASE_CLIENT_QUORUM)) != null) {
            quorum = withClientPort(trimmed(lookup.apply(HBASE_CLIENT_QUORUM)),
                    (int) positive(lookup, HBASE_CLIENT_PORT, DEFAULT_ZK_CLIENT_PORT));
            quorumKey = HBASE_CLIENT_QUORUM;
        }
        if (quorum == null) {
            String hbaseQuorum = trimmed(lookup.apply(HBASE_QUORUM));
            if (hbaseQuorum != null) {
                quorum = withClientPort(hbaseQuorum,
                        (int) positive(lookup, HBASE_CLIENT_PORT, DEFAULT_ZK_CLIENT_PORT));
                quorumKey = HBASE_QUORUM;
            }
        }
        String path = TxnSettings.TM_ZK_PATH.get(lookup);
        while (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ZK_PATH + "='" + path + "' is not a valid ZooKeeper path ("
                    + e.getMessage() + "); use an absolute path such as " + DEFAULT_ZK_PATH, e);
        }
        if ("/".equals(path)) {
            throw new IllegalArgumentException(ZK_PATH + "=/ would put the TM's nodes at the ZooKeeper root; use a"
                    + " dedicated path such as " + DEFAULT_ZK_PATH);
        }
        return new HaConfig(quorum, quorumKey, path,
                TxnSettings.TM_LEASE_MS.get(lookup),
                TxnSettings.TM_ZK_CONNECT_TIMEOUT_MS.get(lookup),
                TxnSettings.TM_ZK_SESSION_TIMEOUT_MS.get(lookup),
                TxnSettings.TM_DISCOVERY_TIMEOUT_MS.get(lookup),
                TxnSettings.TM_ADVERTISED_HOST.get(lookup),
                ZkAccess.from(lookup));
    }

    /** HBase lists quorum hosts without ports and gives the port separately; ZooKeeper wants host:port. */
    static String withClientPort(String hosts, int clientPort) {
        List<String> parts = new ArrayList<>();
        for (String host : hosts.split(",")) {
            String h = host.trim();
            if (h.isEmpty()) {
                continue;
            }
            parts.add(h.contains(":") ? h : h + ":" + clientPort);
        }
        return String.join(",", parts);
    }

    /** True when a ZooKeeper quorum is configured, i.e. the TM runs primary/backup. */
    public boolean isEnabled() {
        return quorum != null;
    }

    /** The ZooKeeper connect string, null when HA is off. */
    public String quorum() {
        return quorum;
    }

    /** The key the quorum came from, to name in error messages. */
    public String quorumKey() {
        return quorumKey;
    }

    public String basePath() {
        return basePath;
    }

    public ZkPaths paths() {
        return new ZkPaths(basePath);
    }

    public long leaseMs() {
        return leaseMs;
    }

    public long connectTimeoutMs() {
        return connectTimeoutMs;
    }

    public long sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    public long discoveryTimeoutMs() {
        return discoveryTimeoutMs;
    }

    /** Host name clients should dial, null to derive it from the server's bind address. */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** ACL of the nodes this client creates, and its session's credentials ({@link ZkAccess}). */
    public ZkAccess access() {
        return access;
    }

    private static String trimmed(String raw) {
        return raw == null || raw.isBlank() ? null : raw.trim();
    }

    static long positive(Function<String, String> lookup, String key, long dflt) {
        return ConfigValues.number(lookup, key, dflt, 1, Long.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "HaConfig{quorum=" + quorum + " (from " + quorumKey + "), path=" + basePath + ", leaseMs=" + leaseMs
                + ", " + access + "}";
    }
}
