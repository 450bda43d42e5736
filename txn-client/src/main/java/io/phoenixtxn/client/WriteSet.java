package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a transaction wrote: row hashes for conflict detection, table ids for fences, and the coordinates of every
 * tentative cell for post-commit and rollback. Thread-safe (Phoenix writes from parallel sub-tasks and joins them).
 */
public final class WriteSet {
    private long[] rowHashes = new long[16];
    private int rowCount;
    private final Set<Long> tableIds = new HashSet<>();
    private final Map<TableName, List<WrittenCell>> cells = new LinkedHashMap<>();

    public synchronized void addRow(long rowHash) {
        if (rowCount == rowHashes.length) {
            rowHashes = Arrays.copyOf(rowHashes, rowCount * 2);
        }
        rowHashes[rowCount++] = rowHash;
    }

    public synchronized void addTable(long tableId) {
        tableIds.add(tableId);
    }

    public synchronized void addCell(TableName table, WrittenCell cell) {
        cells.computeIfAbsent(table, t -> new ArrayList<>()).add(cell);
    }

    /**
     * Forgets the cells written to a table that no longer exists (a dropped index whose rows a transaction computed
     * from stale metadata): post-commit and rollback have nothing to do there. Row hashes and table ids stay; they
     * only make conflict and fence checks more conservative.
     */
    public synchronized void forgetCells(TableName table) {
        cells.remove(table);
    }

    /** Adds everything another write set holds (a joined sub-task's writes). */
    public void addAll(WriteSet other) {
        if (other == this) {
            return;
        }
        long[] rows;
        Set<Long> tables;
        Map<TableName, List<WrittenCell>> otherCells;
        synchronized (other) {
            rows = Arrays.copyOf(other.rowHashes, other.rowCount);
            tables = new HashSet<>(other.tableIds);
            otherCells = new LinkedHashMap<>();
            other.cells.forEach((t, l) -> otherCells.put(t, new ArrayList<>(l)));
        }
        synchronized (this) {
            for (long r : rows) {
                addRow(r);
            }
            tableIds.addAll(tables);
            otherCells.forEach((t, l) -> cells.computeIfAbsent(t, k -> new ArrayList<>()).addAll(l));
        }
    }

    public synchronized long[] rowHashes() {
        return Arrays.copyOf(rowHashes, rowCount);
    }

    public synchronized long[] tableIds() {
        return tableIds.stream().mapToLong(Long::longValue).toArray();
    }

    public synchronized Map<TableName, List<WrittenCell>> cells() {
        Map<TableName, List<WrittenCell>> copy = new LinkedHashMap<>();
        cells.forEach((t, l) -> copy.put(t, new ArrayList<>(l)));
        return copy;
    }

    /** True when this transaction wrote any cell to {@code table}. */
    public synchronized boolean writes(TableName table) {
        List<WrittenCell> written = cells.get(table);
        return written != null && !written.isEmpty();
    }

    /** True when this transaction deleted a row of {@code table} (a family delete marker: empty qualifier). */
    public synchronized boolean deletesRowsOf(TableName table) {
        List<WrittenCell> written = cells.get(table);
        if (written != null) {
            for (WrittenCell cell : written) {
                if (cell.qualifier().length == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when nothing was written: the transaction commits without asking the TM. */
    public synchronized boolean isEmpty() {
        return cells.isEmpty();
    }

    public synchronized void clear() {
        rowCount = 0;
        tableIds.clear();
        cells.clear();
    }
}
