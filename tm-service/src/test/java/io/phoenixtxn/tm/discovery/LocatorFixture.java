package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZkTestCluster;
import io.phoenixtxn.tm.net.TmServerConfig;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** Settings, deployed clusters and TM servers for the locator tests, on one test ZooKeeper. */
final class LocatorFixture {
    static final long LEASE_MS = 1_000;
    static final long DISCOVERY_MS = 1_500;

    private final ZkTestCluster zk;

    LocatorFixture(ZkTestCluster zk) {
        this.zk = zk;
    }

    /** A client's or server's settings under {@code base}: short timeouts, a small conflict table. */
    Function<String, String> settings(String base, TmMode mode, String... extra) {
        Map<String, String> more = new HashMap<>();
        more.put(TmMode.KEY, mode.name().toLowerCase(Locale.ROOT));
        more.put(HaConfig.DISCOVERY_TIMEOUT_MS, Long.toString(DISCOVERY_MS));
        more.put(TmConfig.CONFLICT_ENTRIES, "16384");
        // A bound, not a wait: a sync right after a forced session expiry took over 5 s on a loaded 2-core machine.
        more.put(HaConfig.ZK_CONNECT_TIMEOUT_MS, "15000");
        for (int i = 0; i + 1 < extra.length; i += 2) {
            more.put(extra[i], extra[i + 1]);
        }
        Function<String, String> cluster = zk.settings(base, LEASE_MS);
        return key -> more.containsKey(key) ? more.get(key) : cluster.apply(key);
    }

    /** A base path whose cluster has a TM deployment (as a TM server that started and stopped leaves it). */
    String deployedPath() throws Exception {
        String base = ZkTestCluster.freshBasePath();
        new TmDeployment(zk.newClient(), HaConfig.from(settings(base, TmMode.AUTO))).declare();
        return base;
    }

    TmHaService startTmServer(Function<String, String> settings) throws Exception {
        return TmHaService.start(zk.newClient(), TmConfig.from(settings).withConflictEntries(1 << 14),
                TmServerConfig.from(settings), HaConfig.from(settings));
    }
}
