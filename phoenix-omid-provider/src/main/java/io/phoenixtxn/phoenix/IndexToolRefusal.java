package io.phoenixtxn.phoenix;

/**
 * Refuses Phoenix's IndexTool (MapReduce) on a transactional table. Phoenix 5.2.1's IndexTool reads the data table
 * through a plain HBase scan (its Phoenix connection is closed before the record reader opens, so no snapshot goes
 * with the scan: rows of pending, aborted and deleted transactions all come back) and writes each index row marked
 * committed at the index's creation millisecond, a timestamp the TM never issued; {@code CREATE INDEX ... ASYNC}
 * takes no fence, so writers that began before the index never maintain it. The index would differ from its table
 * for good. Its writes reach the provider only through {@code markPutAsCommitted} from its direct writer (its mappers
 * also begin and roll back a transaction per batch), so the refusal is there: the mapper fails with this message and
 * writes nothing. Phoenix's TransformTool writes through the same writer and is refused alike.
 *
 * <p>The supported way to build an ASYNC index of a transactional table is {@code ALTER INDEX ... REBUILD}: Phoenix
 * runs the synchronous build, which fences the table at the TM and populates at the fence on the region servers
 * (design.md sec. 4.4).
 */
final class IndexToolRefusal {
    /** Phoenix 5.2.1's writer of IndexTool's direct (non-HFile) mapper, the only caller refused. */
    static final String INDEX_TOOL_WRITER = "org.apache.phoenix.mapreduce.index.DirectHTableWriter";

    /**
     * Finds the class that called the provider's method: {@code CALLERS.getCallerClass()} there, one shallow frame
     * lookup per call (markPutAsCommitted runs per row in Phoenix's server-side builds).
     */
    static final StackWalker CALLERS = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private IndexToolRefusal() {
    }

    /** Throws if {@code caller}, the class that called the provider's method, is IndexTool's writer. */
    static void refuseIfIndexTool(Class<?> caller) {
        refuseIfIndexTool(caller.getName());
    }

    static void refuseIfIndexTool(String callerClass) {
        if (INDEX_TOOL_WRITER.equals(callerClass)) {
            throw new UnsupportedOperationException(message());
        }
    }

    static String message() {
        return "Phoenix's IndexTool cannot build an index of a transactional table with phoenix-txn (nor can TransformTool,"
                + " which writes through the same writer): it reads the"
                + " data table without a snapshot (uncommitted and aborted rows would enter the index) and CREATE INDEX"
                + " ... ASYNC takes no fence. Build the index with ALTER INDEX <index> ON <table> REBUILD instead: it"
                + " fences the table and populates the index at the fence on the region servers (docs/compatibility.md,"
                + " \"ASYNC indexes\").";
    }
}
