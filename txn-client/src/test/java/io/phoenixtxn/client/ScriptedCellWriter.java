package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link CommitCellWriter} that records what it was asked to write, and fails as the test scripts it: a table can
 * be dropped (TableNotFoundException every time) or fail its next writes with an IOException.
 */
final class ScriptedCellWriter implements CommitCellWriter {
    /** One successful write: the commit timestamp and the cells it marked. */
    record Write(long commitTs, List<WrittenCell> cells) {
    }

    private final Map<TableName, List<Write>> written = new HashMap<>();
    private final Set<TableName> dropped = new HashSet<>();
    private final Map<TableName, Integer> failuresLeft = new HashMap<>();

    void drop(TableName table) {
        dropped.add(table);
    }

    void failNextWrites(TableName table, int times) {
        failuresLeft.put(table, times);
    }

    List<Write> writesTo(TableName table) {
        return written.getOrDefault(table, List.of());
    }

    @Override
    public synchronized void writeCommitCells(TableName table, long commitTs, List<WrittenCell> cells)
            throws IOException {
        if (dropped.contains(table)) {
            throw new TableNotFoundException(table);
        }
        int left = failuresLeft.getOrDefault(table, 0);
        if (left > 0) {
            failuresLeft.put(table, left - 1);
            throw new IOException("region of " + table + " unavailable (scripted)");
        }
        written.computeIfAbsent(table, t -> new ArrayList<>()).add(new Write(commitTs, List.copyOf(cells)));
    }
}
