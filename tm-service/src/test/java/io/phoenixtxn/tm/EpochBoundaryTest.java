package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.phoenixtxn.tm.TransactionManagerCoreTest.NO_ROWS;
import static io.phoenixtxn.tm.TransactionManagerCoreTest.TABLE_A;
import static io.phoenixtxn.tm.TransactionManagerCoreTest.TABLE_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edges of a primary's epoch: a transaction that began at the very last timestamp an earlier primary reserved
 * (and could issue) has its conflict history with that primary, so it never commits at the next one; and a bulk
 * load, which needs no conflict history, survives the low-water mark rising under other tables' traffic.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpochBoundaryTest {
    private static final long MILLIS = TransactionManagerCoreTest.MILLIS;

    @Test
    void aTransactionAtTheEarlierPrimarysLastReservedTimestampCannotCommitAtTheNext() throws Exception {
        InMemoryTimestampStorage storage = new InMemoryTimestampStorage();
        FenceStore fences = FenceStore.inMemory();
        ManualClock clock = new ManualClock(MILLIS);
        AtomicLong nanos = new AtomicLong();
        TmConfig config = TransactionManagerCoreTest.small(Map.of(TmConfig.TIMESTAMP_RESERVATION_MS, "1000"));
        long last;
        try (TransactionManagerCore first = TransactionManagerCore.start(config, clock, storage, fences,
                Lease.ALWAYS_HELD, DecisionLog.DEFAULT_WAIT_MILLIS, nanos::get)) {
            first.begin();
            long reservedMax = first.oracle().reservedMax();
            clock.set(MILLIS + 1000);
            last = first.begin();
            assertEquals(reservedMax, last, "the oracle issues its reservation's last timestamp itself");
        }
        try (TransactionManagerCore second = TransactionManagerCore.start(config, clock, storage, fences,
                Lease.ALWAYS_HELD, DecisionLog.DEFAULT_WAIT_MILLIS, nanos::get)) {
            second.keepAlive(new long[] {last}); // adopted during the grace period: it may read on
            assertEquals(AbortReason.BELOW_LOW_WATER_MARK,
                    second.commit(last, new long[] {1}, new long[] {TABLE_A}).abortReason());
        }
    }

    @Test
    void aLongBulkLoadSurvivesTheLowWaterMarkRisingFromOtherTablesTraffic() throws Exception {
        try (TransactionManagerCore tm = TransactionManagerCoreTest.inMemory()) { // 65,536 conflict entries
            long load = tm.beginBulkLoad(new long[] {TABLE_A});
            long row = 0;
            for (int i = 0; i < 20_000; i++) {
                long[] rows = {++row, ++row, ++row, ++row, ++row, ++row, ++row, ++row};
                assertTrue(tm.commit(tm.begin(), rows, new long[] {TABLE_B}).isCommitted());
            }
            assertTrue(tm.lowWaterMark() > load, "eviction raised the mark past the load's start");
            assertTrue(tm.commit(load, NO_ROWS, new long[] {TransactionManager.BULK_LOAD_COMMIT, TABLE_A})
                    .isCommitted(), "a held load needs no conflict history");
        }
    }
}
