package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.ha.HaConfig;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterIdTest {
    private static ClusterId id(String quorum, String path) {
        Map<String, String> s = path == null ? Map.of(HaConfig.ZK_QUORUM, quorum)
                : Map.of(HaConfig.ZK_QUORUM, quorum, HaConfig.ZK_PATH, path);
        return ClusterId.of(HaConfig.from(s::get));
    }

    @Test
    void loopbackSpellingsAndServerSubsetsAreOneCluster() {
        assertTrue(id("localhost:2181", null).sameAs(id("127.0.0.1:2181", null)));
        assertTrue(id("127.0.0.1:2181,localhost:2181", null).sameAs(id("[::1]:2181", null)));
        assertTrue(id("zk1:2181,zk2:2181,zk3:2181", null).sameAs(id("ZK2:2181", null)));
    }

    @Test
    void otherPortsPathsOrChrootsAreOtherClusters() {
        assertFalse(id("localhost:2181", null).sameAs(id("localhost:2182", null)));
        assertFalse(id("zk1:2181", "/a").sameAs(id("zk1:2181", "/b")));
        assertFalse(id("zk1:2181/x", null).sameAs(id("zk1:2181", null)));
        assertFalse(id("zk1:2181", null).sameAs(id("zk2:2181", null)));
    }
}
