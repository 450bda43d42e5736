package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.phoenix.schema.PNameFactory;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.transaction.TransactionFactory;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** Which Phoenix writes the provider routes onto the fast path, and its beliefs about tables' switches. */
class FastPathRouteTest {
    private static final TableName T = TableName.valueOf("T");

    @Test
    void onlyATransactionalDataTableWithoutIndexWhoseSwitchIsOnIsEligible() {
        FastPathSwitchCache on = switches(new AtomicBoolean(true), new AtomicInteger(), new AtomicLong());
        FastPathSwitchCache off = switches(new AtomicBoolean(false), new AtomicInteger(), new AtomicLong());
        assertTrue(FastPathRoute.eligible(table(true, PTableType.TABLE, List.of()), on));
        assertFalse(FastPathRoute.eligible(table(true, PTableType.TABLE, List.of()), off), "switch off");
        assertFalse(FastPathRoute.eligible(table(false, PTableType.TABLE, List.of()), on), "not transactional");
        assertFalse(FastPathRoute.eligible(table(true, PTableType.VIEW, List.of()), on), "a view");
        assertFalse(FastPathRoute.eligible(table(true, PTableType.INDEX, List.of()), on), "an index");
        assertFalse(FastPathRoute.eligible(table(true, PTableType.TABLE, List.of(mock(PTable.class))), on),
                "a table with an index (any kind, any state)");
        assertFalse(FastPathRoute.eligible(null, on), "no single buffered table");
    }

    @Test
    void onlyOnePutOrOneDeleteIsASingleRowWrite() {
        Put put = new Put(new byte[] {1});
        Delete delete = new Delete(new byte[] {1});
        assertSame(put, FastPathRoute.singleRowWrite(List.of(put)));
        assertSame(delete, FastPathRoute.singleRowWrite(List.of(delete)));
        assertNull(FastPathRoute.singleRowWrite(List.of(put, delete)), "two rows");
        assertNull(FastPathRoute.singleRowWrite(List.of()), "nothing");
        assertNull(FastPathRoute.singleRowWrite(List.of(new Increment(new byte[] {1}))), "not a put or a delete");
    }

    @Test
    void beliefsAreReReadAfterTheirTimeToLiveAndARefusalIsBelievedAtOnce() {
        AtomicBoolean enabled = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger();
        AtomicLong now = new AtomicLong(1_000);
        FastPathSwitchCache switches = switches(enabled, reads, now);
        assertTrue(switches.isEnabled(T));
        enabled.set(false);
        now.addAndGet(4_999);
        assertTrue(switches.isEnabled(T), "within the time to live: the belief, no master call");
        assertEquals(1, reads.get());
        now.addAndGet(1);
        assertFalse(switches.isEnabled(T), "re-read after the time to live");
        assertEquals(2, reads.get());

        enabled.set(true);
        now.addAndGet(5_000);
        assertTrue(switches.isEnabled(T));
        switches.refused(T);
        assertFalse(switches.isEnabled(T), "a FENCED refusal is believed without asking the master");
        assertEquals(3, reads.get());
        assertEquals(FastPathSwitchCache.State.ON, switches.readNow(T), "readNow always asks");
    }

    private static FastPathSwitchCache switches(AtomicBoolean enabled, AtomicInteger reads, AtomicLong now) {
        return new FastPathSwitchCache(table -> {
            reads.incrementAndGet();
            return enabled.get();
        }, FastPathSwitchCache.DEFAULT_TTL_MS, 2_000, 10_000, now::get);
    }

    private static PTable table(boolean transactional, PTableType type, List<PTable> indexes) {
        PTable table = mock(PTable.class);
        when(table.isTransactional()).thenReturn(transactional);
        when(table.getTransactionProvider()).thenReturn(transactional ? TransactionFactory.Provider.OMID : null);
        when(table.getType()).thenReturn(type);
        when(table.getIndexes()).thenReturn(indexes);
        when(table.getPhysicalName()).thenReturn(PNameFactory.newName("T"));
        return table;
    }
}
