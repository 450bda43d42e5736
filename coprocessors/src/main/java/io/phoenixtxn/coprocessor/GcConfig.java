package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.ConfigValues;

import java.util.function.Function;

/** Region-server settings of compaction-time garbage collection, read from hbase-site.xml keys. */
final class GcConfig {
    /** How often a region server asks the TM for the GC horizon. */
    static final String HORIZON_REFRESH_MS = "phoenix.txn.gc.horizon.refresh.ms";
    static final long DEFAULT_HORIZON_REFRESH_MS = 5_000;
    /** A row of one store with more cells than this is written unchanged by GC (its cells are buffered). */
    static final String ROW_MAX_CELLS = "phoenix.txn.gc.row.max.cells";
    static final int DEFAULT_ROW_MAX_CELLS = 100_000;

    private final long horizonRefreshMs;
    private final int rowMaxCells;

    private GcConfig(long horizonRefreshMs, int rowMaxCells) {
        this.horizonRefreshMs = horizonRefreshMs;
        this.rowMaxCells = rowMaxCells;
    }

    static GcConfig from(Function<String, String> lookup) {
        return new GcConfig(ConfigValues.number(lookup, HORIZON_REFRESH_MS, DEFAULT_HORIZON_REFRESH_MS, 10,
                3_600_000), (int) ConfigValues.number(lookup, ROW_MAX_CELLS, DEFAULT_ROW_MAX_CELLS, 2,
                Integer.MAX_VALUE));
    }

    long horizonRefreshMs() {
        return horizonRefreshMs;
    }

    int rowMaxCells() {
        return rowMaxCells;
    }
}
