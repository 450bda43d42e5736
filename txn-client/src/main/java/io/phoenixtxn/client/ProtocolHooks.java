package io.phoenixtxn.client;

/**
 * Fault-injection points between the steps of the commit and read protocols. Production runs the no-op; tests
 * install latches or throw to force a race deterministically (a reader between a writer's TM decision and its
 * commit point, a crash after the commit point, ...). One JVM-wide instance because the minicluster's region
 * servers run in the test's JVM.
 */
public interface ProtocolHooks {
    ProtocolHooks NONE = new ProtocolHooks() { };

    /** A writer is about to ask the TM to commit {@code txId} (nothing is decided yet). */
    default void beforeTmCommit(long txId) throws java.io.IOException {
    }

    /** The TM refused to commit {@code txId} for {@code reason}; its tentative writes are being rolled back. */
    default void afterTmAbort(long txId, io.phoenixtxn.tm.AbortReason reason) {
    }

    /** The TM decided to commit; the commit-table write (the commit point) has not happened. */
    default void afterTmDecision(long txId, long commitTs) throws java.io.IOException {
    }

    /** The commit point passed; commit cells are not written yet. Throwing here simulates a crashed client. */
    default void afterCommitPoint(long txId, long commitTs) throws java.io.IOException {
    }

    /** A reader found a pending version of {@code writerTxId} and is about to force-abort it. */
    default void beforeInvalidate(long writerTxId) {
    }

    /** A reader met a version of {@code writerTxId} without a commit cell and starts resolving it. */
    default void onPendingVersion(long writerTxId) {
    }

    static ProtocolHooks current() {
        return Installed.hooks;
    }

    /** Installs hooks for the whole JVM; returns the previous ones. Tests restore them in a finally block. */
    static ProtocolHooks install(ProtocolHooks hooks) {
        ProtocolHooks previous = Installed.hooks;
        Installed.hooks = hooks == null ? NONE : hooks;
        return previous;
    }

    /** Holder of the installed instance. */
    final class Installed {
        private static volatile ProtocolHooks hooks = NONE;

        private Installed() {
        }
    }
}
