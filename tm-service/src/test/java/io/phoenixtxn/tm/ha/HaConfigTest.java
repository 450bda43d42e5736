package io.phoenixtxn.tm.ha;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HaConfigTest {

    @Test
    @Timeout(10)
    void defaultsLeaveHaOff() {
        HaConfig config = HaConfig.from(key -> null);
        assertFalse(config.isEnabled());
        assertNull(config.quorum());
        assertEquals("/phoenix-txn", config.basePath());
        assertEquals(10_000, config.leaseMs());
        assertEquals("/phoenix-txn/tm/primary", config.paths().primary());
        assertEquals("/phoenix-txn/timestamp", config.paths().timestamp());
        assertEquals("/phoenix-txn/fences/-5", config.paths().fence(-5));
    }

    @Test
    @Timeout(10)
    void theQuorumFallsBackToHBasesWithItsClientPort() {
        HaConfig config = HaConfig.from(Map.of(
                HaConfig.HBASE_QUORUM, "zk1, zk2:2281,zk3",
                HaConfig.HBASE_CLIENT_PORT, "2182")::get);
        assertTrue(config.isEnabled());
        assertEquals("zk1:2182,zk2:2281,zk3:2182", config.quorum());
        assertEquals(HaConfig.HBASE_QUORUM, config.quorumKey());

        HaConfig defaultPort = HaConfig.from(Map.of(HaConfig.HBASE_QUORUM, "zk1")::get);
        assertEquals("zk1:2181", defaultPort.quorum());
    }

    @Test
    @Timeout(10)
    void ourOwnQuorumKeyWins() {
        HaConfig config = HaConfig.from(Map.of(
                HaConfig.ZK_QUORUM, "tmzk:2181",
                HaConfig.HBASE_QUORUM, "hbasezk",
                HaConfig.ZK_PATH, "/txn/prod/",
                HaConfig.LEASE_MS, "1000")::get);
        assertEquals("tmzk:2181", config.quorum());
        assertEquals(HaConfig.ZK_QUORUM, config.quorumKey());
        assertEquals("/txn/prod", config.basePath(), "a trailing slash is dropped");
        assertEquals(1000, config.leaseMs());
    }

    @Test
    @Timeout(10)
    void badValuesNameTheirKey() {
        IllegalArgumentException lease = assertThrows(IllegalArgumentException.class,
                () -> HaConfig.from(Map.of(HaConfig.LEASE_MS, "soon")::get));
        assertTrue(lease.getMessage().contains(HaConfig.LEASE_MS), lease.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> HaConfig.from(Map.of(HaConfig.LEASE_MS, "-1")::get));
        assertTrue(negative.getMessage().contains(HaConfig.LEASE_MS), negative.getMessage());
        IllegalArgumentException path = assertThrows(IllegalArgumentException.class,
                () -> HaConfig.from(Map.of(HaConfig.ZK_PATH, "relative")::get));
        assertTrue(path.getMessage().contains(HaConfig.ZK_PATH), path.getMessage());
        IllegalArgumentException root = assertThrows(IllegalArgumentException.class,
                () -> HaConfig.from(Map.of(HaConfig.ZK_PATH, "/")::get));
        assertTrue(root.getMessage().contains(HaConfig.ZK_PATH), root.getMessage());
    }
}
