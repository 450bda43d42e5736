package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The settings registry: the README's configuration table is exactly {@link TxnSettings#readmeTable()} (every key,
 * its default, its readers, its text), the defaults are the ones the config classes had before the registry, and a
 * bad value fails naming the key, the value and the allowed range.
 */
class TxnSettingsTest {

    @Test
    void readmeTableIsTheRegistrysTable() throws IOException {
        Path readme = Path.of(System.getProperty("user.dir")).resolveSibling("README.md");
        List<String> lines = Files.readAllLines(readme);
        int start = lines.indexOf("| key | default | read by | meaning |");
        assertTrue(start >= 0, "README.md has no configuration table");
        List<String> table = new ArrayList<>();
        for (int i = start; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            table.add(lines.get(i));
        }
        assertEquals(TxnSettings.readmeTable(), String.join("\n", table) + "\n",
                "README.md's configuration table differs from the registry: run"
                        + " `java -cp tm-service/target/classes:snapshot-semantics/target/classes"
                        + " io.phoenixtxn.tm.TxnSettings` and paste its output over the table");
    }

    /** The defaults as the config classes declared them before the registry; none may change by moving them. */
    @Test
    void defaultsAreUnchanged() {
        Map<String, Object> expected = new TreeMap<>();
        expected.put("phoenix.transactions.enabled", false);
        expected.put("phoenix.txn.alter.to.transactional", true);
        expected.put("phoenix.txn.tm.mode", "auto");
        expected.put("phoenix.txn.tm.conflict.entries", 4_194_304L);
        expected.put("phoenix.txn.tm.conflict.associativity", 16L);
        expected.put("phoenix.txn.tm.timestamp.reservation.ms", 10_000L);
        expected.put("phoenix.txn.tm.max.writeset.size", 1_048_576L);
        expected.put("phoenix.txn.tm.decisions.retained", 262_144L);
        expected.put("phoenix.txn.tm.server.host", "127.0.0.1");
        expected.put("phoenix.txn.tm.server.port", 24_680L);
        expected.put("phoenix.txn.tm.server.max.frame.bytes", 16_777_216L);
        expected.put("phoenix.txn.tm.server.idle.timeout.s", 60L);
        expected.put("phoenix.txn.tm.server.io.threads",
                (long) Math.min(4, Runtime.getRuntime().availableProcessors()));
        expected.put("phoenix.txn.tm.server.worker.threads",
                (long) Math.min(8, Runtime.getRuntime().availableProcessors()));
        expected.put("phoenix.txn.tm.server.tls.cert.file", null);
        expected.put("phoenix.txn.tm.server.tls.key.file", null);
        expected.put("phoenix.txn.tm.server.spin.us", 50L);
        expected.put("phoenix.txn.tm.metrics.port", -1L);
        expected.put("phoenix.txn.tm.netty.nio", false);
        // Declared after the registry, with their own modules' defaults:
        expected.put("phoenix.txn.fastpath.routing", true);
        expected.put("phoenix.txn.fastpath.switch.cache.ms", 5_000L);
        expected.put("phoenix.txn.finished.flush.ms", 10L); // was a constant of 100 ms in TxnClient
        expected.put("phoenix.txn.fastpath.switch.read.timeout.ms", 1_000L);
        expected.put("phoenix.txn.fastpath.switch.failure.cache.ms", 2_000L);
        expected.put("phoenix.txn.metadata.repair.ms", 1_000L);
        expected.put("phoenix.txn.index.population.on.region.servers", true);
        expected.put("phoenix.txn.index.population.threads", 8L);
        expected.put("phoenix.txn.index.population.page.rows", 10_000L);
        expected.put("phoenix.txn.index.population.page.ms", 1_000L);
        expected.put("phoenix.txn.index.population.batch.rows", 1_000L);
        expected.put("phoenix.txn.index.population.attempts", 3L);
        expected.put("phoenix.txn.index.population.load.share.percent", 25L);
        expected.put("phoenix.txn.index.population.load.window.ms", 1_000L);
        expected.put("phoenix.txn.gc.row.stream.max.cells", 2_000_000L);
        expected.put("phoenix.txn.tm.tls.enabled", false);
        expected.put("phoenix.txn.tm.tls.handshake.timeout.ms", 10_000L);
        expected.put("phoenix.txn.tm.tls.keystore.location", null);
        expected.put("phoenix.txn.tm.tls.keystore.password", null);
        expected.put("phoenix.txn.tm.tls.keystore.type", "PKCS12");
        expected.put("phoenix.txn.tm.tls.truststore.location", null);
        expected.put("phoenix.txn.tm.tls.truststore.password", null);
        expected.put("phoenix.txn.tm.tls.truststore.type", "PKCS12");
        expected.put("phoenix.txn.tm.zk.acl", null);
        expected.put("phoenix.txn.tm.zk.auth", null);
        expected.put("phoenix.txn.tm.client.connections", 2L);
        expected.put("phoenix.txn.tm.client.request.timeout.ms", 5_000L);
        expected.put("phoenix.txn.tm.client.status.timeout.ms", 500L);
        expected.put("phoenix.txn.tm.client.connect.timeout.ms", 3_000L);
        expected.put("phoenix.txn.tm.client.ping.interval.ms", 10_000L);
        expected.put("phoenix.txn.tm.client.max.frame.bytes", 16_777_216L);
        expected.put("phoenix.txn.tm.client.tls.enabled", false);
        expected.put("phoenix.txn.tm.client.tls.trust.file", null);
        expected.put("phoenix.txn.tm.client.spin.us", 50L);
        expected.put("phoenix.txn.tm.zk.quorum", null);
        expected.put("phoenix.txn.tm.zk.path", "/phoenix-txn");
        expected.put("phoenix.txn.tm.lease.ms", 10_000L);
        expected.put("phoenix.txn.tm.zk.connect.timeout.ms", 15_000L);
        expected.put("phoenix.txn.tm.zk.session.timeout.ms", 30_000L);
        expected.put("phoenix.txn.tm.discovery.timeout.ms", 30_000L);
        expected.put("phoenix.txn.tm.advertised.host", null);
        expected.put("phoenix.txn.commit.table", "OMID_COMMIT_TABLE");
        expected.put("phoenix.txn.commit.table.regions", 1L);
        expected.put("phoenix.txn.postcommit.mode", "async");
        expected.put("phoenix.txn.reader.pending.wait.ms", 50L);
        expected.put("phoenix.txn.cleaner.interval.ms", 60_000L);
        expected.put("phoenix.txn.tm.transaction.lease.ms", 60_000L);
        expected.put("phoenix.txn.tm.commit.point.horizon.lag.ms", 120_000L);
        expected.put("phoenix.txn.keepalive.interval.ms", 20_000L);
        expected.put("phoenix.txn.commit.point.timeout.ms", 30_000L);
        expected.put("phoenix.txn.gc.horizon.refresh.ms", 5_000L);
        expected.put("phoenix.txn.gc.row.max.cells", 100_000L);
        expected.put("phoenix.txn.fastpath.bootstrap.wait.ms", 1_000L);
        expected.put("phoenix.txn.fastpath.read.wait.ms", 30_000L);
        expected.put("phoenix.txn.fastpath.slot.max.age.ms", 1_000L);
        expected.put("phoenix.txn.fastpath", null);
        expected.put("phoenix.txn.committed.below", null);
        expected.put("phoenix.txn.stack.startup.timeout.s", 300L);
        Map<String, Object> actual = new TreeMap<>();
        for (Setting<?> setting : TxnSettings.all()) {
            actual.put(setting.key(), setting.get(key -> null));
        }
        assertEquals(expected, actual);
    }

    @Test
    void outOfRangeValueNamesKeyValueAndRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TxnSettings.TM_CLIENT_CONNECTIONS.get(Map.of("phoenix.txn.tm.client.connections", "65")::get));
        assertEquals("phoenix.txn.tm.client.connections=65 is out of range; use a value in [1, 64]", e.getMessage());
    }

    @Test
    void nonNumberNamesKeyValueAndRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TxnSettings.TM_LEASE_MS.get(Map.of(TxnSettings.TM_LEASE_MS.key(), "10s")::get));
        assertTrue(e.getMessage().startsWith(
                "phoenix.txn.tm.lease.ms='10s' is not a number; use a whole number in [1, "), e.getMessage());
    }

    @Test
    void choicesAndFlagsAreCheckedAndTrimmed() {
        assertEquals("sync", TxnSettings.POST_COMMIT_MODE.get(Map.of("phoenix.txn.postcommit.mode", " SYNC ")::get));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TxnSettings.TM_MODE.get(Map.of(TxnSettings.TM_MODE.key(), "local")::get));
        assertEquals("phoenix.txn.tm.mode='local' is not one of auto, embedded, remote", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TxnSettings.TM_CLIENT_TLS_ENABLED.get(Map.of("phoenix.txn.tm.client.tls.enabled", "yes")::get));
        assertEquals("phoenix.txn.tm.client.tls.enabled='yes' is not true or false", e.getMessage());
    }

    @Test
    void blankMeansDefault() {
        assertEquals(10_000L, TxnSettings.TM_LEASE_MS.get(Map.of(TxnSettings.TM_LEASE_MS.key(), "  ")::get));
    }
}
