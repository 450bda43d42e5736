package io.phoenixtxn.it.fastpath;

import io.phoenixtxn.client.fastpath.BrwcResult;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathFunction;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.client.fastpath.VersionedResult;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HBase-level fast-path API on a real region (VLDB'18 sec. 4.1): brc, bwc, br + wc, brwc, deletes, the table
 * switch, and what regular transactions see of fast-path commits.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FastPathBasicsIT {
    private static FastPathFixture fx;

    @BeforeAll
    static void open() throws Exception {
        fx = FastPathFixture.open();
    }

    @AfterAll
    static void close() {
        fx.close();
    }

    @Test
    void aBlindWriteIsReadByTheFastPathAndByLaterRegularTransactions() throws Exception {
        TableName name = FastPathFixture.createTable("fp_bwc");
        try (FastPathTable t = fx.fastPathTable(name)) {
            long version = t.bwc(FastPathFixture.put("x", 1));
            assertTrue(TimestampLayout.isFastPathVersion(version), "a fast-path version: " + version);
            assertEquals(1L, FastPathFixture.value(t.brc(FastPathFixture.get("x"))));
            VersionedResult read = t.br(FastPathFixture.get("x"));
            assertEquals(version, read.version());
            assertEquals(1L, fx.readRegular(name, "x"), "a transaction begun after the write sees it");
            long second = t.bwc(FastPathFixture.put("x", 2));
            assertTrue(second > version, second + " after " + version);
            assertEquals(2L, FastPathFixture.value(t.brc(FastPathFixture.get("x"))));
        }
    }

    @Test
    void aWriteConditionalOnAStaleReadAbortsAndAFreshOneCommits() throws Exception {
        TableName name = FastPathFixture.createTable("fp_wc");
        try (FastPathTable t = fx.fastPathTable(name)) {
            assertEquals(0, t.br(FastPathFixture.get("x")).version(), "nothing committed yet");
            t.bwc(FastPathFixture.put("x", 10));
            VersionedResult first = t.br(FastPathFixture.get("x"));
            t.bwc(FastPathFixture.put("x", 11));
            FastPathAbortedException stale = assertThrows(FastPathAbortedException.class,
                    () -> t.wc(first.version(), FastPathFixture.put("x", 100)));
            assertSame(FastPathAbortedException.Reason.NEWER_COMMIT, stale.reason());
            assertTrue(stale.getMessage().startsWith(FastPathAbortedException.SQL_PREFIX), stale.getMessage());
            VersionedResult fresh = t.br(FastPathFixture.get("x"));
            assertEquals(11L, FastPathFixture.value(fresh.result()));
            long written = t.wc(fresh.version(), FastPathFixture.put("x", 12));
            assertTrue(written > fresh.version());
            assertEquals(12L, fx.readRegular(name, "x"));
        }
    }

    @Test
    void brwcIncrementsAndComparesAndSetsInOneStep() throws Exception {
        TableName name = FastPathFixture.createTable("fp_brwc");
        try (FastPathTable t = fx.fastPathTable(name)) {
            long previous = 0;
            for (int i = 1; i <= 5; i++) {
                BrwcResult r = t.brwc(Bytes.toBytes("c"), FastPathFunction.increment(FastPathFixture.FAMILY,
                        FastPathFixture.QUALIFIER, 3));
                assertTrue(r.applied());
                assertEquals(3L * i, FastPathFixture.value(r.result()));
                assertTrue(r.version() > previous);
                previous = r.version();
            }
            BrwcResult missed = t.brwc(Bytes.toBytes("c"), FastPathFunction.compareAndSet(FastPathFixture.FAMILY,
                    FastPathFixture.QUALIFIER, Bytes.toBytes(7L), Bytes.toBytes(0L)));
            assertFalse(missed.applied());
            assertEquals(15L, FastPathFixture.value(missed.result()), "the current value comes back");
            assertEquals(previous, missed.version(), "nothing written: the row's version");
            BrwcResult set = t.brwc(Bytes.toBytes("c"), FastPathFunction.compareAndSet(FastPathFixture.FAMILY,
                    FastPathFixture.QUALIFIER, Bytes.toBytes(15L), Bytes.toBytes(0L)));
            assertTrue(set.applied());
            assertEquals(0L, fx.readRegular(name, "c"));
        }
    }

    @Test
    void aFastPathDeleteHidesTheRowAndMovesItsVersion() throws Exception {
        TableName name = FastPathFixture.createTable("fp_delete");
        try (FastPathTable t = fx.fastPathTable(name)) {
            t.bwc(FastPathFixture.put("d", 5));
            long before = t.br(FastPathFixture.get("d")).version();
            long deleted = t.bwc(new Delete(Bytes.toBytes("d")));
            assertTrue(deleted > before);
            VersionedResult read = t.br(FastPathFixture.get("d"));
            assertTrue(read.result().isEmpty(), "deleted: " + read.result());
            assertEquals(deleted, read.version(), "the delete is the row's newest commit");
            assertNull(fx.readRegular(name, "d"));
            t.wc(read.version(), FastPathFixture.put("d", 6));
            assertEquals(6L, fx.readRegular(name, "d"), "re-inserted after the delete");
        }
    }

    @Test
    void theFastPathIsOptInATableWithoutTheAttributeRefusesFastPathWrites() throws Exception {
        TableName name = FastPathFixture.createTable("fp_optin", false);
        try (FastPathTable t = fx.fastPathTable(name); Admin admin = FastPathFixture.hbase().getAdmin()) {
            FastPathAbortedException refused = assertThrows(FastPathAbortedException.class,
                    () -> t.bwc(FastPathFixture.put("o", 1)));
            assertSame(FastPathAbortedException.Reason.FENCED, refused.reason());
            assertTrue(refused.getMessage().contains(FastPathSwitch.ATTRIBUTE + "=true"), refused.getMessage());
            assertNull(fx.readRegular(name, "o"), "nothing written");
            FastPathSwitch.enable(admin, name);
            t.bwc(FastPathFixture.put("o", 2));
            assertEquals(2L, fx.readRegular(name, "o"));
        }
    }

    @Test
    void aTableWithTheFastPathDisabledRefusesFastPathWritesButNotReads() throws Exception {
        TableName name = FastPathFixture.createTable("fp_switch");
        try (FastPathTable t = fx.fastPathTable(name); Admin admin = FastPathFixture.hbase().getAdmin()) {
            t.bwc(FastPathFixture.put("s", 1));
            FastPathSwitch.disable(admin, name);
            FastPathAbortedException refused = assertThrows(FastPathAbortedException.class,
                    () -> t.bwc(FastPathFixture.put("s", 2)));
            assertSame(FastPathAbortedException.Reason.FENCED, refused.reason());
            assertFalse(refused.reason().regularRetryHelps());
            assertEquals(1L, FastPathFixture.value(t.brc(FastPathFixture.get("s"))));
            Transaction regular = fx.writeRegular(name, "s", 3);
            assertTrue(regular.commitTs() > 0, "regular transactions are unaffected");
            FastPathSwitch.enable(admin, name);
            t.bwc(FastPathFixture.put("s", 4));
            assertEquals(4L, fx.readRegular(name, "s"));
        }
    }
}
