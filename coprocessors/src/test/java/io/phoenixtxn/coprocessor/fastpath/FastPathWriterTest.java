package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.fastpath.ColumnValue;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathInDoubtException;
import io.phoenixtxn.client.fastpath.FastPathRequest;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathWire;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FastPathWriter} on a fake region: the answer of a carrier HBase recognised as resent (its nonce manager reports
 * a duplicate, so HBase marks it done before preBatchMutate, which skips {@link FastPathWriter#write}, and still calls postIncrement,
 * {@link FastPathWriter#answer}) is in doubt, never "applied"; and the write itself, run under the row lock and the
 * region's updates lock, never waits for the clock's bootstrap (preIncrement, {@link FastPathWriter#admit}, does).
 */
class FastPathWriterTest {
    private static final byte[] F = Bytes.toBytes("f");

    @Test
    void aResentCarrierAnsweredFromItsNonceIsInDoubtNotApplied() {
        Region region = emptyRegion();
        FastPathWriter writer = new FastPathWriter(region, new RowReader(region, null, () -> io.phoenixtxn.tm.Horizon.UNKNOWN), null, null, null, null, 0,
                () -> -1);
        Increment resent = FastPathWire.carrier(Bytes.toBytes("r"), FastPathRequest.write(FastPathRequest.NO_BOUND,
                List.of(new ColumnValue(F, Bytes.toBytes("v"), Bytes.toBytes(1L)))), null);

        // HBase's duplicate path: the write in preBatchMutate skipped, postIncrement called.
        FastPathInDoubtException inDoubt = assertThrows(FastPathInDoubtException.class, () -> {
            Result answer = writer.answer(resent);
            throw new AssertionError("answered " + FastPathWire.outcomeOf(answer) + " for a resent carrier");
        });
        assertTrue(inDoubt.getMessage().contains("resent"), inDoubt.getMessage());
    }

    @Test
    void theWriteUnderTheRowLockNeverWaitsForTheBootstrap() {
        Region region = emptyRegion();
        ScriptedTimestamps tm = ScriptedTimestamps.held(RowCells.slot(0)); // the TM never answers
        LocalVersionClock clock = new LocalVersionClock(tm);
        FastPathWriter writer = new FastPathWriter(region, new RowReader(region, null, () -> io.phoenixtxn.tm.Horizon.UNKNOWN), new RegionBootstrap(clock, tm),
                clock, new InFlightWrites(1_000), null, 60_000, () -> -1);
        Increment carrier = FastPathWire.carrier(Bytes.toBytes("r"), FastPathRequest.write(FastPathRequest.NO_BOUND,
                List.of(new ColumnValue(F, Bytes.toBytes("v"), Bytes.toBytes(1L)))), null);

        FastPathAbortedException refused = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(FastPathAbortedException.class, () -> writer.write(carrier)),
                "write() waited under the row lock for the bootstrap (60 s wait configured)");
        assertSame(FastPathAbortedException.Reason.SLOT_UNAVAILABLE, refused.reason());
        assertTrue(tm.requests() > 0, "the bootstrap was started");
    }

    /**
     * Compaction may have removed every trace of a delete committed below the GC horizon (its commit cells never
     * written, resolved through the commit table): a fast-path version must still be above it, so the clock is bumped
     * to the horizon before the draw.
     */
    @Test
    void aVersionIsDrawnAboveTheGcHorizonOfAnEmptyRow() throws Exception {
        Region region = emptyRegion();
        ScriptedTimestamps tm = ScriptedTimestamps.immediate(RowCells.slot(0));
        LocalVersionClock clock = new LocalVersionClock(tm);
        RegionBootstrap bootstrap = new RegionBootstrap(clock, tm);
        assertTrue(bootstrap.await(1_000));
        RowReader rows = new RowReader(region, null, () -> io.phoenixtxn.tm.Horizon.UNKNOWN);
        long horizon = TimestampLayout.nextSlotStart(RowCells.slot(100)) + 1; // just above the TM's last timestamp
        FastPathWriter writer = new FastPathWriter(region, rows, bootstrap, clock, new InFlightWrites(1_000),
                new TentativeWriteCheck(region, rows, bootstrap, clock), 1_000, () -> horizon);
        Increment carrier = FastPathWire.carrier(Bytes.toBytes("r"), FastPathRequest.write(FastPathRequest.NO_BOUND,
                List.of(new ColumnValue(F, Bytes.toBytes("v"), Bytes.toBytes(1L)))), null);

        writer.admit(carrier);
        writer.write(carrier);
        long version = FastPathWire.outcomeOf(writer.answer(carrier)).version();
        writer.finished();
        assertTrue(version > horizon, "version " + TimestampLayout.describe(version) + " above the GC horizon "
                + TimestampLayout.describe(horizon));
        assertTrue(TimestampLayout.isFastPathVersion(version));
    }

    /** A region of table t (fast path on) whose rows are all empty; anything else it is asked fails the test. */
    private static Region emptyRegion() {
        RegionScanner scanner = (RegionScanner) Proxy.newProxyInstance(RegionScanner.class.getClassLoader(),
                new Class<?>[] {RegionScanner.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "next", "nextRaw" -> false;
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (Region) Proxy.newProxyInstance(Region.class.getClassLoader(), new Class<?>[] {Region.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getScanner" -> scanner;
                    case "getRegionInfo" -> RegionInfoBuilder.newBuilder(TableName.valueOf("t")).build();
                    case "getTableDescriptor" -> TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
                            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
                            .setValue(FastPathSwitch.ATTRIBUTE, "true").build();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
