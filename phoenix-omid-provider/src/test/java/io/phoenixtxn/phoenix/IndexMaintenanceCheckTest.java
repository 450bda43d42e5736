package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.WriteSet;
import io.phoenixtxn.client.WrittenCell;
import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.schema.PIndexState;
import org.apache.phoenix.schema.PName;
import org.apache.phoenix.schema.PNameFactory;
import org.apache.phoenix.schema.PTable;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

class IndexMaintenanceCheckTest {
    private static final TableName DATA = TableName.valueOf("T");
    private static final TableName INDEX = TableName.valueOf("T_IDX");
    private static final WrittenCell ROW_DELETE = new WrittenCell(new byte[] {1}, new byte[] {'0'}, new byte[0], 10);
    private static final WrittenCell PUT = new WrittenCell(new byte[] {1}, new byte[] {'0'}, new byte[] {'V'}, 10);

    @Test
    void rowDeletesMustReachEveryBuildingOrActiveGlobalIndex() {
        PTable data = table("T", index("T_IDX", PIndexState.BUILDING, PTable.IndexType.GLOBAL));
        Map<TableName, PTable> sent = Map.of(DATA, data);
        assertEquals(Optional.of("T_IDX (T)"), IndexMaintenanceCheck.skippedIndex(sent, writes(Map.of(DATA,
                List.of(ROW_DELETE)))), "a row delete that wrote nothing to the index");
        assertEquals(Optional.empty(), IndexMaintenanceCheck.skippedIndex(sent, writes(Map.of(DATA,
                List.of(ROW_DELETE), INDEX, List.of(ROW_DELETE)))), "the index row was deleted too");
        assertEquals(Optional.empty(), IndexMaintenanceCheck.skippedIndex(sent, writes(Map.of(DATA, List.of(PUT)))),
                "upserts are maintained at send time by Phoenix: not checked");
    }

    @Test
    void disabledAndLocalIndexesAreNotRequired() {
        PTable data = table("T", index("T_IDX", PIndexState.DISABLE, PTable.IndexType.GLOBAL),
                index("T_LOCAL", PIndexState.ACTIVE, PTable.IndexType.LOCAL));
        assertEquals(Optional.empty(), IndexMaintenanceCheck.skippedIndex(Map.of(DATA, data),
                writes(Map.of(DATA, List.of(ROW_DELETE)))));
    }

    private static WriteSet writes(Map<TableName, List<WrittenCell>> cells) {
        WriteSet writes = new WriteSet();
        cells.forEach((table, list) -> list.forEach(cell -> writes.addCell(table, cell)));
        return writes;
    }

    private static PTable table(String name, PTable... indexes) {
        PTable table = mock(PTable.class);
        when(table.getName()).thenReturn(PNameFactory.newName(name));
        when(table.getIndexes()).thenReturn(List.of(indexes));
        return table;
    }

    private static PTable index(String name, PIndexState state, PTable.IndexType type) {
        PTable index = mock(PTable.class);
        PName pName = PNameFactory.newName(name);
        when(index.getName()).thenReturn(pName);
        when(index.getPhysicalName()).thenReturn(pName);
        when(index.getIndexState()).thenReturn(state);
        when(index.getIndexType()).thenReturn(type);
        return index;
    }
}
