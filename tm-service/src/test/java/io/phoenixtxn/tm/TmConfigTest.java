package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TmConfigTest {

    @Test
    void defaults() {
        TmConfig c = TmConfig.defaults();
        assertEquals(1 << 22, c.conflictEntries());
        assertEquals(16, c.conflictAssociativity());
        assertEquals(10_000, c.timestampReservationMs());
        assertEquals(1 << 20, c.maxWriteSet());
        assertEquals("phoenix.txn.tm.conflict.entries", TmConfig.CONFLICT_ENTRIES);
        assertEquals("phoenix.txn.tm.conflict.associativity", TmConfig.CONFLICT_ASSOCIATIVITY);
        assertEquals("phoenix.txn.tm.timestamp.reservation.ms", TmConfig.TIMESTAMP_RESERVATION_MS);
        assertEquals("phoenix.txn.tm.max.writeset.size", TmConfig.MAX_WRITE_SET);
    }

    @Test
    void readsEveryKeyTrimmedAndBlankMeansDefault() {
        Properties p = new Properties();
        p.setProperty(TmConfig.CONFLICT_ENTRIES, " 1024 ");
        p.setProperty(TmConfig.CONFLICT_ASSOCIATIVITY, "16");
        p.setProperty(TmConfig.TIMESTAMP_RESERVATION_MS, "86400000"); // the largest allowed: one day
        p.setProperty(TmConfig.MAX_WRITE_SET, "  ");
        TmConfig c = TmConfig.from(p::getProperty);
        assertEquals(1024, c.conflictEntries());
        assertEquals(16, c.conflictAssociativity());
        assertEquals(86_400_000L, c.timestampReservationMs());
        assertEquals(TmConfig.DEFAULT_MAX_WRITE_SET, c.maxWriteSet());
    }

    @ParameterizedTest
    @ValueSource(strings = {"phoenix.txn.tm.conflict.entries", "phoenix.txn.tm.conflict.associativity",
        "phoenix.txn.tm.timestamp.reservation.ms", "phoenix.txn.tm.max.writeset.size",
        "phoenix.txn.tm.decisions.retained"})
    void badValuesNameTheKey(String key) {
        for (String bad : new String[] {"0", "-1", "ten", "1.5", "0x10", "99999999999999999999"}) {
            Map<String, String> m = new HashMap<>();
            m.put(TmConfig.CONFLICT_ENTRIES, "1024");
            m.put(key, bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TmConfig.from(m::get),
                    key + "=" + bad);
            assertTrue(e.getMessage().startsWith(key + "="), e.getMessage());
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"phoenix.txn.tm.conflict.entries", "phoenix.txn.tm.conflict.associativity",
        "phoenix.txn.tm.max.writeset.size", "phoenix.txn.tm.decisions.retained"})
    void countsMustFitAnInt(String key) {
        Map<String, String> m = new HashMap<>();
        m.put(key, "2147483648");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TmConfig.from(m::get));
        assertTrue(e.getMessage().startsWith(key + "=2147483648") && e.getMessage().contains("out of range"),
                e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"86400001", "5000000000", "9300000000000"})
    void reservationsLongerThanADayAreRejectedNamingTheKey(String tooLong) {
        // Larger values used to overflow the oracle's reservation bound (x 1,000,000 units per ms, added to a ~1.7e18
        // timestamp: above about 7.5e12 ms it wrapped negative and begin() spun forever).
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TmConfig.from(Map.of(TmConfig.TIMESTAMP_RESERVATION_MS, tooLong)::get));
        assertTrue(e.getMessage().startsWith(TmConfig.TIMESTAMP_RESERVATION_MS + "=" + tooLong), e.getMessage());
    }

    @Test
    void associativityAboveEntriesNamesBothKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TmConfig.from(
                Map.of(TmConfig.CONFLICT_ENTRIES, "8", TmConfig.CONFLICT_ASSOCIATIVITY, "16")::get));
        assertTrue(e.getMessage().contains(TmConfig.CONFLICT_ASSOCIATIVITY + "=16"), e.getMessage());
        assertTrue(e.getMessage().contains(TmConfig.CONFLICT_ENTRIES + "=8"), e.getMessage());
        // Equal is fine (a single bucket).
        TmConfig one = TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "8", TmConfig.CONFLICT_ASSOCIATIVITY, "8")::get);
        assertEquals(8, one.conflictEntries());
    }

    @Test
    void withConflictEntriesKeepsAssociativityValid() {
        TmConfig c = TmConfig.defaults().withConflictEntries(8);
        assertEquals(8, c.conflictEntries());
        assertEquals(8, c.conflictAssociativity());
        assertEquals(TmConfig.DEFAULT_MAX_WRITE_SET, c.maxWriteSet());
        TmConfig big = TmConfig.defaults().withConflictEntries(1 << 10);
        assertEquals(TmConfig.DEFAULT_CONFLICT_ASSOCIATIVITY, big.conflictAssociativity());
        assertEquals(1 << 10, TransactionManagerCore.startInMemory(big).conflictTableCapacity());
    }
}
