package io.phoenixtxn.phoenix;

import org.apache.phoenix.execute.MutationState;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.TableRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * What a connection's {@link MutationState} holds unsent: Phoenix 5.2 exposes a row count but not the tables, and
 * its commit retry re-buffers a failed transaction's rows without counting them, so the rows are read from the
 * private {@code mutationsMap} (Phoenix 5.2.1's field), through a handle resolved once per JVM.
 *
 * <p>Invariant: when the map cannot be read (another Phoenix version, a {@link LinkageError}), every answer is the
 * one that keeps the regular path: {@link #singleTable} null, {@link #isEmpty} false; that is logged once.
 */
final class BufferedWrites {
    private static final Logger LOG = LoggerFactory.getLogger(BufferedWrites.class);
    private static final BufferedWrites PHOENIX = new BufferedWrites(phoenixMutationsMap());

    /** Reads a state's buffered rows by table; null if it cannot. */
    private final Function<MutationState, Map<?, ?>> mutationsMap;
    private final AtomicBoolean loggedUnreadable = new AtomicBoolean();

    BufferedWrites(Function<MutationState, Map<?, ?>> mutationsMap) {
        this.mutationsMap = mutationsMap;
    }

    /** Phoenix's own buffered rows, read through the handle resolved once. */
    static BufferedWrites phoenix() {
        return PHOENIX;
    }

    private static Function<MutationState, Map<?, ?>> phoenixMutationsMap() {
        try {
            VarHandle handle = MethodHandles.privateLookupIn(MutationState.class, MethodHandles.lookup())
                    .findVarHandle(MutationState.class, "mutationsMap", Map.class);
            return state -> (Map<?, ?>) handle.get(state);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.warn("Phoenix's MutationState.mutationsMap cannot be read ({}): fast-path routing is off, every"
                    + " statement takes the regular path", e.toString());
            return null;
        }
    }

    /** The table of the state's only buffered row, or null if it holds no row, several, or cannot be read. */
    PTable singleTable(MutationState state) {
        Map<?, ?> map = read(state);
        if (map == null || state.getNumRows() != 1) {
            return null;
        }
        try {
            PTable table = null;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!holdsRows(e.getValue())) {
                    continue;
                }
                if (table != null) {
                    return null; // rows of two tables
                }
                table = ((TableRef) e.getKey()).getTable();
            }
            return table;
        } catch (RuntimeException | LinkageError e) {
            unreadable(e);
            return null;
        }
    }

    /**
     * True only if the state certainly buffers no row: its map is empty (the row count alone is not enough: Phoenix's
     * commit retry puts a failed transaction's rows back without counting them).
     */
    boolean isEmpty(MutationState state) {
        if (state.getNumRows() != 0) {
            return false;
        }
        Map<?, ?> map = read(state);
        if (map == null) {
            return false;
        }
        try {
            for (Object rows : map.values()) {
                if (holdsRows(rows)) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException | LinkageError e) {
            unreadable(e);
            return false;
        }
    }

    private Map<?, ?> read(MutationState state) {
        if (mutationsMap == null) {
            return null;
        }
        try {
            return mutationsMap.apply(state);
        } catch (RuntimeException | LinkageError e) {
            unreadable(e);
            return null;
        }
    }

    private void unreadable(Throwable e) {
        if (loggedUnreadable.compareAndSet(false, true)) {
            LOG.warn("Phoenix's buffered mutations cannot be read ({}): statements that could take the fast path take"
                    + " the regular path", e.toString(), e);
        }
    }

    private static boolean holdsRows(Object rows) {
        if (rows instanceof MutationState.MultiRowMutationState) {
            return !((MutationState.MultiRowMutationState) rows).isEmpty();
        }
        if (rows instanceof List) {
            for (Object r : (List<?>) rows) {
                if (holdsRows(r)) {
                    return true;
                }
            }
        }
        return false;
    }
}
