package io.phoenixtxn.phoenix;

import org.apache.phoenix.execute.MutationState;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.TableRef;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;

/**
 * What a connection's {@link MutationState} holds unsent: Phoenix 5.2 exposes the row count but not the tables, so
 * the single buffered table is read from its private {@code mutationsMap} (Phoenix 5.2.1's field; if a Phoenix
 * version lacks it, {@link #singleTable} answers null and every statement takes the regular path).
 */
final class BufferedWrites {
    private static final Field MUTATIONS = mutationsField();

    private BufferedWrites() {
    }

    private static Field mutationsField() {
        try {
            Field f = MutationState.class.getDeclaredField("mutationsMap");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** The table of the state's only buffered row, or null if it holds no row, several, or cannot be read. */
    static PTable singleTable(MutationState state) {
        if (MUTATIONS == null || state.getNumRows() != 1) {
            return null;
        }
        try {
            Map<?, ?> map = (Map<?, ?>) MUTATIONS.get(state);
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
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
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
