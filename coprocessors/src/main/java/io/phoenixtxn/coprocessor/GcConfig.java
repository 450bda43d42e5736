package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.TxnSettings;

import java.util.function.Function;

/**
 * Region-server settings of compaction-time garbage collection, read from hbase-site.xml keys declared in
 * {@link TxnSettings}.
 */
final class GcConfig {
    /** How often a region server asks the TM for the GC horizon. */
    static final String HORIZON_REFRESH_MS = TxnSettings.GC_HORIZON_REFRESH_MS.key();
    static final long DEFAULT_HORIZON_REFRESH_MS = TxnSettings.GC_HORIZON_REFRESH_MS.defaultValue();
    /** A row of one store with more cells than this is written unchanged by GC (its cells are buffered). */
    static final String ROW_MAX_CELLS = TxnSettings.GC_ROW_MAX_CELLS.key();
    static final int DEFAULT_ROW_MAX_CELLS = TxnSettings.GC_ROW_MAX_CELLS.defaultValue().intValue();
    /** A larger row is decided in two passes in compactions (StreamedRowGc), up to this many cells. */
    static final String STREAM_MAX_CELLS = TxnSettings.GC_ROW_STREAM_MAX_CELLS.key();

    private final long horizonRefreshMs;
    private final int rowMaxCells;
    private final long streamMaxCells;

    private GcConfig(long horizonRefreshMs, int rowMaxCells, long streamMaxCells) {
        this.horizonRefreshMs = horizonRefreshMs;
        this.rowMaxCells = rowMaxCells;
        this.streamMaxCells = streamMaxCells;
    }

    static GcConfig from(Function<String, String> lookup) {
        return new GcConfig(TxnSettings.GC_HORIZON_REFRESH_MS.get(lookup),
                TxnSettings.GC_ROW_MAX_CELLS.get(lookup).intValue(), TxnSettings.GC_ROW_STREAM_MAX_CELLS.get(lookup));
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
