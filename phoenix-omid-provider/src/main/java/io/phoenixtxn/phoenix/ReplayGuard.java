package io.phoenixtxn.phoenix;

import org.apache.phoenix.jdbc.PhoenixConnection;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Keeps Phoenix's commit retry from replaying writes outside their conflict window.
 *
 * <p>When a commit fails with SQL 523, Phoenix 5.2's {@code MutationState.commit} starts a new transaction on the
 * same connection and, if the failed transaction's tables gained an index meanwhile (or all of them are
 * immutable), re-sends the failed transaction's already computed mutations in it. Those values were computed from
 * the failed transaction's snapshot; checked for write-write conflicts only from the new start, the replay would
 * overwrite a commit that landed in between (a lost update). So after every 523 we remember the failed
 * transaction's conflict start for its connection, and the next transaction begun on that connection inherits it
 * ({@code TxnClient.beginReplayOf}): the TM checks its writes against every commit since the original start.
 *
 * <p>That next transaction is Phoenix's replay, or, when Phoenix decides not to replay, the transaction the
 * application continues in. Phoenix runs no statement between its retry's begin and the replay's commit, while
 * every application statement first calls {@code MutationState.sendUncommitted}, which sets the context's
 * visibility level: that call turns the inherited window back into the transaction's own
 * ({@link PhoenixTxnContext#setVisibilityLevel}). Erring the other way only costs a spurious conflict.
 */
final class ReplayGuard {
    private static final Map<PhoenixConnection, Long> FAILED_CONFLICT_STARTS =
            Collections.synchronizedMap(new WeakHashMap<>());

    private ReplayGuard() {
    }

    /** A commit on {@code connection} failed with 523; its writes, computed since {@code conflictsSince}, may be replayed. */
    static void commitFailed(PhoenixConnection connection, long conflictsSince) {
        FAILED_CONFLICT_STARTS.merge(connection, conflictsSince, Math::min);
    }

    /** The conflict start a transaction begun now on {@code connection} must inherit, or -1. Consumed. */
    static long takeInheritedConflictStart(PhoenixConnection connection) {
        Long since = FAILED_CONFLICT_STARTS.remove(connection);
        return since == null ? -1 : since;
    }
}
