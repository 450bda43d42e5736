package io.phoenixtxn.phoenix;

/**
 * Admits index rows from Phoenix's IndexTool direct writer only for a build with our fence semantics
 * ({@code io.phoenixtxn.indextool.TransactionalIndexTool}). Phoenix 5.2.1's own IndexTool, on a transactional table,
 * writes each index row marked committed at the index's creation millisecond, a timestamp the TM never issued, and
 * {@code CREATE INDEX ... ASYNC} takes no fence, so writers that began before the index never maintain it: the index
 * would differ from its table for good. Its writes reach the provider only through {@code markPutAsCommitted} from
 * its direct writer (its mappers also begin and roll back a transaction per batch), so the check is there: a write
 * at a timestamp that is not the fence of a build whose map task began its view in this JVM
 * ({@link IndexToolMapperView}) fails the mapper with {@link #message()} and writes nothing. Phoenix's TransformTool
 * writes through the same writer and is refused alike.
 */
final class IndexToolRefusal {
    /** Phoenix 5.2.1's writer of IndexTool's direct (non-HFile) mapper, the only caller checked. */
    static final String INDEX_TOOL_WRITER = "org.apache.phoenix.mapreduce.index.DirectHTableWriter";

    /**
     * Finds the class that called the provider's method: {@code CALLERS.getCallerClass()} there, one shallow frame
     * lookup per call (markPutAsCommitted runs per row in Phoenix's server-side builds).
     */
    static final StackWalker CALLERS = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private IndexToolRefusal() {
    }

    /**
     * Throws if {@code caller}, the class that called the provider's method, is IndexTool's writer and the write is
     * not at the fence of a build of ours ({@code version} and {@code commitTimestamp} both that fence).
     */
    static void refuseIfIndexTool(Class<?> caller, long version, long commitTimestamp) {
        refuseIfIndexTool(caller.getName(), version, commitTimestamp);
    }

    static void refuseIfIndexTool(String callerClass, long version, long commitTimestamp) {
        if (INDEX_TOOL_WRITER.equals(callerClass)
                && !(version == commitTimestamp && IndexToolMapperView.isBuildFence(version))) {
            throw new UnsupportedOperationException(message());
        }
    }

    static String message() {
        return "Phoenix's IndexTool cannot build an index of a transactional table with phoenix-txn (nor can TransformTool,"
                + " which writes through the same writer): it reads the"
                + " data table without a snapshot (uncommitted and aborted rows would enter the index) and CREATE INDEX"
                + " ... ASYNC takes no fence. Run io.phoenixtxn.indextool.TransactionalIndexTool instead (same"
                + " arguments, with -runfg): it fences the table and builds the index at the fence. Or build the index"
                + " with ALTER INDEX <index> ON <table> REBUILD: it fences the table and populates the index at the"
                + " fence on the region servers (docs/compatibility.md, \"ASYNC indexes\").";
    }
}
