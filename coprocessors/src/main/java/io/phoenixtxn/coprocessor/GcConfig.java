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

    private final long horizonRefreshMs;
    private final int rowMaxCells;

    private GcConfig(long horizonRefreshMs, int rowMaxCells) {
        this.horizonRefreshMs = horizonRefreshMs;
        this.rowMaxCells = rowMaxCells;
    }

    static GcConfig from(Function<String, String> lookup) {
        return new GcConfig(TxnSettings.GC_HORIZON_REFRESH_MS.get(lookup),
                TxnSettings.GC_ROW_MAX_CELLS.get(lookup).intValue());
    }

    long horizonRefreshMs() {
        return horizonRefreshMs;
    }

    int rowMaxCells() {
        return rowMaxCells;
    }
}
