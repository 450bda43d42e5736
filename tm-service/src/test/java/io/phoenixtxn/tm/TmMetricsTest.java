package io.phoenixtxn.tm;

import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.metrics.MetricsSnapshot;
import io.phoenixtxn.tm.metrics.TmMetrics;
import io.phoenixtxn.tm.metrics.TmMetricsSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each TM metric, provoked by what it counts, on a real {@link TransactionManagerCore}: begins, commits, every abort
 * reason the TM decides, the sampled commit-latency quantiles, the conflict table's occupancy and evictions, the
 * low-water mark and its lag, epoch and primacy (read through the metrics2 source, as JMX and sinks read it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TmMetricsTest {
    private static final long[] TABLE = {0xA};

    private static TransactionManagerCore tiny(TmMetrics metrics) {
        return TransactionManagerCore.startInMemory(TmConfig.from(Map.of(TmConfig.CONFLICT_ENTRIES, "4",
                TmConfig.CONFLICT_ASSOCIATIVITY, "4")::get), metrics);
    }

    private static Map<String, Number> read(TmMetrics metrics, TransactionManagerCore tm) {
        return MetricsSnapshot.of(new TmMetricsSource(metrics, () -> tm, () -> null));
    }

    @Test
    void beginsCommitsAndConflictAbortsAreCounted() throws Exception {
        TmMetrics metrics = new TmMetrics();
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(
                TransactionManagerCoreTest.small(Map.of()), metrics)) {
            long loser = tm.begin();
            long[] batch = new long[3];
            tm.begin(3, batch, 0);
            assertEquals(4, metrics.begins());
            assertTrue(tm.commit(batch[0], new long[] {42}, TABLE).isCommitted());
            assertSame(AbortReason.CONFLICT, tm.commit(loser, new long[] {42}, TABLE).abortReason());
            assertEquals(1, metrics.commits());
            assertEquals(1, metrics.aborts(AbortReason.CONFLICT));
            Map<String, Number> seen = read(metrics, tm);
            assertEquals(4L, seen.get("Begins"));
            assertEquals(1L, seen.get("Commits"));
            assertEquals(1L, seen.get("AbortsConflict"));
            assertEquals(0L, seen.get("AbortsFence"));
        }
    }

    @Test
    void fenceAbortIsCounted() throws Exception {
        TmMetrics metrics = new TmMetrics();
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(
                TransactionManagerCoreTest.small(Map.of()), metrics)) {
            long before = tm.begin();
            tm.fence(TABLE[0]);
            assertSame(AbortReason.FENCE, tm.commit(before, new long[] {1}, TABLE).abortReason());
            assertEquals(1, metrics.aborts(AbortReason.FENCE));
            assertEquals(1L, read(metrics, tm).get("AbortsFence"));
        }
    }

    /**
     * A full conflict table: the oldest transaction's new row finds no way it may take (CONFLICT_HISTORY_FULL);
     * one more young commit evicts the oldest entry, which raises the low-water mark, and the old transaction then
     * aborts below it. Occupancy, evictions, the mark and its lag follow.
     */
    @Test
    void conflictTableOccupancyEvictionsAndLowWaterMarkAbortsAreCounted() throws Exception {
        TmMetrics metrics = new TmMetrics();
        try (TransactionManagerCore tm = tiny(metrics)) {
            Map<String, Number> fresh = read(metrics, tm);
            assertEquals(0L, fresh.get("ConflictTableOccupied"));
            assertEquals(4, fresh.get("ConflictTableCapacity"));
            assertEquals(-1L, fresh.get("LowWaterMarkLagMs"), "no mark yet");
            long old = tm.begin();
            for (int i = 0; i < 4; i++) {
                assertTrue(tm.commit(tm.begin(), new long[] {100 + i}, TABLE).isCommitted());
            }
            assertEquals(4L, read(metrics, tm).get("ConflictTableOccupied"));
            assertSame(AbortReason.CONFLICT_HISTORY_FULL, tm.commit(old, new long[] {200}, TABLE).abortReason());
            assertEquals(1, metrics.aborts(AbortReason.CONFLICT_HISTORY_FULL));

            long old2 = tm.begin();
            assertTrue(tm.commit(tm.begin(), new long[] {999}, TABLE).isCommitted());
            Map<String, Number> evicted = read(metrics, tm);
            assertEquals(4L, evicted.get("ConflictTableOccupied"), "an eviction reuses an entry");
            assertEquals(1L, evicted.get("ConflictTableEvictions"));
            assertEquals(tm.lowWaterMark(), evicted.get("LowWaterMark"));
            assertTrue(evicted.get("LowWaterMarkLagMs").longValue() >= 0, evicted.toString());
            assertSame(AbortReason.BELOW_LOW_WATER_MARK, tm.commit(old, new long[] {7}, TABLE).abortReason());
            assertTrue(old2 > tm.lowWaterMark());
            assertEquals(1, metrics.aborts(AbortReason.BELOW_LOW_WATER_MARK));
            assertEquals(1L, read(metrics, tm).get("AbortsBelowLowWaterMark"));
        }
    }

    @Test
    void expiredTransactionAbortIsCounted() throws Exception {
        AtomicLong nanos = new AtomicLong(1_000_000);
        TmConfig config = TransactionManagerCoreTest.small(Map.of()).withTransactionLease(1_000, 5_000);
        try (TransactionManagerCore tm = TransactionManagerCore.start(config, Clock.SYSTEM,
                new InMemoryTimestampStorage(), FenceStore.inMemory(), Lease.ALWAYS_HELD, 50, nanos::get)) {
            long crashed = tm.begin();
            nanos.addAndGet(2_000 * 1_000_000L);
            assertSame(AbortReason.EXPIRED, tm.commit(crashed, new long[] {1}, TABLE).abortReason());
            assertEquals(1, tm.metrics().aborts(AbortReason.EXPIRED));
            assertEquals(1L, read(tm.metrics(), tm).get("AbortsExpired"));
        }
    }

    /**
     * {@code LastTimestamp} is the oracle's last timestamp: it moves with each begin and commit, and follows the
     * (stepped) wall clock in ms x 10^6, as operators read it.
     */
    @Test
    void lastTimestampFollowsIssuedTimestampsAndTheWallClock() throws Exception {
        AtomicLong wallMillis = new AtomicLong(1_717_200_000_000L);
        TmMetrics metrics = new TmMetrics();
        try (TransactionManagerCore tm = TransactionManagerCore.start(TransactionManagerCoreTest.small(Map.of()),
                wallMillis::get, new InMemoryTimestampStorage(), FenceStore.inMemory(), Lease.ALWAYS_HELD, metrics)) {
            long first = tm.begin();
            assertEquals(first, read(metrics, tm).get("LastTimestamp"));
            assertEquals(wallMillis.get(), TimestampLayout.millisOf(first));

            wallMillis.addAndGet(3_000);
            long second = tm.begin();
            assertEquals(second, read(metrics, tm).get("LastTimestamp"));
            assertEquals(wallMillis.get(), TimestampLayout.millisOf(read(metrics, tm).get("LastTimestamp")
                    .longValue()), "grows with the wall clock");

            long commitTs = tm.commit(second, new long[] {1}, TABLE).commitTimestamp();
            assertTrue(commitTs > second);
            assertEquals(commitTs, read(metrics, tm).get("LastTimestamp"), "a commit timestamp is issued too");
        }
    }

    /** The lease runs out while the commit timestamp is drawn (the oracle reads the clock): LEASE_LOST, counted. */
    @Test
    void leaseLostAbortAndPrimacyAreReported() throws Exception {
        AtomicBoolean held = new AtomicBoolean(true);
        AtomicBoolean expireOnNextClockRead = new AtomicBoolean();
        Clock pausingClock = () -> {
            if (expireOnNextClockRead.getAndSet(false)) {
                held.set(false);
            }
            return System.currentTimeMillis();
        };
        TmMetrics metrics = new TmMetrics();
        try (TransactionManagerCore tm = TransactionManagerCore.start(TransactionManagerCoreTest.small(Map.of()),
                pausingClock, new InMemoryTimestampStorage(), FenceStore.inMemory(), held::get, metrics)) {
            Map<String, Number> primary = read(metrics, tm);
            assertEquals(1, primary.get("Primary"));
            assertEquals(tm.epochBase(), primary.get("Epoch"));
            long tx = tm.begin();
            assertEquals(1, read(metrics, tm).get("OpenTransactions"));
            expireOnNextClockRead.set(true);
            assertSame(AbortReason.LEASE_LOST, tm.commit(tx, new long[] {1}, TABLE).abortReason());
            assertEquals(1, metrics.aborts(AbortReason.LEASE_LOST));
            assertEquals(0, read(metrics, tm).get("Primary"), "a TM whose lease ran out is no primary");
        }
    }

    /**
     * One commit in {@value TmMetrics#SAMPLE_EVERY} (by id) is timed; the quantiles publish each window's samples
     * when it rolls over (1 s here), so the test waits for that instead of the 60 s default.
     */
    @Test
    void commitLatencyQuantilesSeeSampledCommits() throws Exception {
        TmMetrics metrics = new TmMetrics(1);
        try (TransactionManagerCore tm = TransactionManagerCore.startInMemory(
                TransactionManagerCoreTest.small(Map.of()), metrics)) {
            int sampled = 0;
            for (long row = 1; sampled < 3; row++) {
                long tx = tm.begin();
                assertTrue(tm.commit(tx, new long[] {row}, TABLE).isCommitted());
                if (TmMetrics.sampled(tx)) {
                    sampled++;
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Map<String, Number> seen = read(metrics, tm);
            while (seen.getOrDefault("CommitLatencyNumCommits", 0L).longValue() < 1) {
                assertTrue(System.nanoTime() < deadline, "no latency sample published: " + seen);
                TimeUnit.MILLISECONDS.sleep(20); // polling a condition, not timing an interleaving
                seen = read(metrics, tm);
            }
            assertTrue(seen.containsKey("CommitLatency99thPercentileMicros"), seen.toString());
            assertTrue(seen.get("CommitLatency99thPercentileMicros").longValue() >= 0, seen.toString());
        }
    }

    @Test
    void samplingTakesOneSlotInSixtyFour() {
        int sampled = 0;
        long base = 1_717_200_000_000L * 1_000_000L;
        for (int slot = 0; slot < 64 * 100; slot++) {
            if (TmMetrics.sampled(base + slot * 950L)) {
                sampled++;
            }
        }
        assertEquals(100, sampled);
    }
}
