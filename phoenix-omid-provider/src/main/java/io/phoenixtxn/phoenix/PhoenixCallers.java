package io.phoenixtxn.phoenix;

/**
 * Which Phoenix code asks a context for its transaction id. Phoenix 5.2.1 uses the id in two ways: to resolve table
 * metadata (a provisional id may answer, design.md sec. 4.11), and in {@code TransactionUtil.getTableTimestamp} as
 * the timestamp DDL writes its catalog rows at. The latter must be a TM timestamp: a catalog row stamped from a
 * client clock that leads the TM's would be invisible to writers that start after the index fence, and they would
 * skip the index. Only asked while a provisional id would be shown; the walk stops after a few frames.
 */
final class PhoenixCallers {
    private static final String TRANSACTION_UTIL = "org.apache.phoenix.util.TransactionUtil";
    private static final String TABLE_TIMESTAMP = "getTableTimestamp";
    /** getTransactionId <- MutationState.getInitialWritePointer <- TransactionUtil.getTableTimestamp, plus slack. */
    private static final int FRAMES = 8;

    private PhoenixCallers() {
    }

    /** True if the current thread asks for a DDL timestamp (TransactionUtil.getTableTimestamp). */
    static boolean asksForDdlTimestamp() {
        return StackWalker.getInstance().walk(frames -> frames.limit(FRAMES).anyMatch(
                f -> TABLE_TIMESTAMP.equals(f.getMethodName()) && TRANSACTION_UTIL.equals(f.getClassName())));
    }
}
