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
    /**
     * A larger row is decided in two passes in compactions (StreamedRowGc), up to this many cells (about 100-200
     * bytes of region-server heap each while it is decided); beyond, it is written unchanged.
     */
    static final String STREAM_MAX_CELLS = "phoenix.txn.gc.row.stream.max.cells";
    static final long DEFAULT_STREAM_MAX_CELLS = 2_000_000;

    private final long horizonRefreshMs;
    private final int rowMaxCells;
    private final long streamMaxCells;

    private GcConfig(long horizonRefreshMs, int rowMaxCells, long streamMaxCells) {
        this.horizonRefreshMs = horizonRefreshMs;
        this.rowMaxCells = rowMaxCells;
        this.streamMaxCells = streamMaxCells;
    }

    static GcConfig from(Function<String, String> lookup) {
        return new GcConfig(ConfigValues.number(lookup, HORIZON_REFRESH_MS, DEFAULT_HORIZON_REFRESH_MS, 10,
                3_600_000), (int) ConfigValues.number(lookup, ROW_MAX_CELLS, DEFAULT_ROW_MAX_CELLS, 2,
                Integer.MAX_VALUE), ConfigValues.number(lookup, STREAM_MAX_CELLS, DEFAULT_STREAM_MAX_CELLS, 0,
                Integer.MAX_VALUE));
    }

    /** Rows above {@link #rowMaxCells()} and up to this are decided in two passes in compactions (0: never). */
    long streamMaxCells() {
        return streamMaxCells;
    }

    long horizonRefreshMs() {
        return horizonRefreshMs;
    }

    int rowMaxCells() {
        return rowMaxCells;
    }
}
