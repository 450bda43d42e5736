package io.phoenixtxn.phoenix;

import io.phoenixtxn.coprocessor.SnapshotReadObserver;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.coprocessorclient.BaseScannerRegionObserverConstants;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexToolRefusalTest {

    @Test
    void indexToolsWriterIsRefusedWithTheWaysThatWork() {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> IndexToolRefusal.refuseIfIndexTool(IndexToolRefusal.INDEX_TOOL_WRITER, 42L, 42L));
        assertTrue(e.getMessage().contains("IndexTool"), e.getMessage());
        assertTrue(e.getMessage().contains("TransactionalIndexTool"), e.getMessage());
        assertTrue(e.getMessage().contains("ALTER INDEX <index> ON <table> REBUILD"), e.getMessage());
    }

    @Test
    void theWriterIsAdmittedAtTheFenceOfABuildWhoseMapperBeganItsViewOnly() {
        long fence = 1_795_000_000_123_000_000L;
        assertThrows(UnsupportedOperationException.class,
                () -> IndexToolRefusal.refuseIfIndexTool(IndexToolRefusal.INDEX_TOOL_WRITER, fence, fence));
        IndexToolMapperView.viewAt(fence);
        assertDoesNotThrow(() -> IndexToolRefusal.refuseIfIndexTool(IndexToolRefusal.INDEX_TOOL_WRITER, fence, fence));
        assertThrows(UnsupportedOperationException.class, () -> IndexToolRefusal.refuseIfIndexTool(
                IndexToolRefusal.INDEX_TOOL_WRITER, fence + 1, fence + 1), "another timestamp");
        assertThrows(UnsupportedOperationException.class, () -> IndexToolRefusal.refuseIfIndexTool(
                IndexToolRefusal.INDEX_TOOL_WRITER, fence, fence + 1), "committed elsewhere than the fence");
    }

    @Test
    void theRefusedClassIsPhoenixsOwn() throws Exception {
        // A Phoenix upgrade that renames IndexTool's writer must fail here, not silently let IndexTool through.
        assertEquals(IndexToolRefusal.INDEX_TOOL_WRITER, Class.forName(IndexToolRefusal.INDEX_TOOL_WRITER).getName());
    }

    @Test
    void theRegionObserverReadsPhoenixsMapReduceTimestampAttribute() {
        // A Phoenix upgrade that renames the attribute must fail here, not let its MapReduce scans read unfiltered.
        assertEquals(BaseScannerRegionObserverConstants.TX_SCN,
                SnapshotReadObserver.PHOENIX_MAPREDUCE_READ_TIMESTAMP);
    }

    @Test
    void otherCallersMarkPutsCommitted() {
        Put put = new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes("v"));
        Put marked = assertDoesNotThrow(() -> PhoenixTxnProvider.INSTANCE.markPutAsCommitted(put, 7L, 7L));
        assertEquals(2, marked.size(), "the data cell and its commit cell");
        marked.getFamilyCellMap().values().forEach(cells -> cells.forEach(c -> assertEquals(7L, c.getTimestamp())));
        assertDoesNotThrow(() -> IndexToolRefusal.refuseIfIndexTool(
                "org.apache.phoenix.coprocessor.UngroupedAggregateRegionScanner", 7L, 7L));
    }
}
