package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.snapshot.Snapshot;
import org.apache.phoenix.jdbc.PhoenixConnection;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The transactions of an index build's map tasks ({@code io.phoenixtxn.indextool.TransactionalIndexTool}, design.md
 * sec. 4.4). Phoenix's IndexTool mapper runs an UPSERT into the index per data row on a connection built from the
 * job's configuration (every job setting becomes a connection property), takes the index cells Phoenix computed,
 * writes them itself marked committed at the job's {@code TX_SCN} ({@code DirectHTableWriter} through the provider's
 * {@code markPutAsCommitted}) and rolls back: it never commits. Its transactions are read-only views at the build's
 * fence: no TM round trip per batch, and a rollback that ends nothing at the TM.
 *
 * <p>A view begun in this JVM also records its fence as one a build really drew and holds, so the provider accepts
 * the direct writer's {@code markPutAsCommitted} at that timestamp only ({@link IndexToolRefusal}); Phoenix's own
 * IndexTool, whose timestamp the TM never issued, stays refused.
 */
public final class IndexToolMapperView {
    /** Job setting (and so mapper connection property): the build's fence, set by the tool on its job only. */
    public static final String FENCE = "phoenix.txn.indextool.fence";

    /** Fences of the builds whose map tasks began a view in this JVM (a handful per JVM lifetime). */
    private static final Set<Long> BUILD_FENCES = ConcurrentHashMap.newKeySet();

    private IndexToolMapperView() {
    }

    /** The fence of the build {@code connection}'s job runs, or -1 if the connection is not a build's mapper's. */
    static long fenceOf(PhoenixConnection connection) {
        if (connection == null) {
            return -1;
        }
        String fence = connection.getClientInfo(FENCE);
        if (fence == null || fence.isBlank()) {
            return -1;
        }
        long f;
        try {
            f = Long.parseLong(fence.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(FENCE + " must be an index build's fence timestamp, got '" + fence
                    + "'; it is set by TransactionalIndexTool on its job and nowhere else", e);
        }
        if (f <= 0) {
            throw new IllegalArgumentException(FENCE + " must be an index build's fence timestamp, got " + f);
        }
        return f;
    }

    /** A read-only view at {@code fence}; records the fence for the direct writer of the same job. */
    static Transaction viewAt(long fence) {
        BUILD_FENCES.add(fence);
        return Transaction.readOnlyView(Snapshot.begin(fence));
    }

    /** Whether a map task of a build fenced at {@code timestamp} began its view in this JVM. */
    static boolean isBuildFence(long timestamp) {
        return BUILD_FENCES.contains(timestamp);
    }
}
