package io.phoenixtxn.phoenix;

import org.apache.phoenix.jdbc.PhoenixConnection;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Connections whose routed write was just refused with SQL 523 because an index is being created (a FENCED bwc, or
 * a regular retry that found the fast-path switch off). Phoenix's commit retry then begins a new transaction,
 * re-reads the table's metadata at its id and may re-send the row: that metadata must be read at a TM timestamp,
 * above the index fence, never at a provisional id from the client's clock, which may lag the TM's and predate the
 * index (design.md sec. 4.11, finding F1). So the next begin on such a connection is eager. Consumed by that begin.
 */
final class RefusedRoutes {
    private static final Map<PhoenixConnection, Boolean> REFUSED = Collections.synchronizedMap(new WeakHashMap<>());

    private RefusedRoutes() {
    }

    /** A routed write on {@code connection} was refused with 523 for an index being created. */
    static void refused(PhoenixConnection connection) {
        if (connection != null) {
            REFUSED.put(connection, Boolean.TRUE);
        }
    }

    /** True (once) if the next transaction on {@code connection} must begin at the TM. */
    static boolean takeMustBeginEagerly(PhoenixConnection connection) {
        return connection != null && REFUSED.remove(connection) != null;
    }
}
