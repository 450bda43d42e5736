package io.phoenixtxn.index;

/**
 * Fault-injection points along an online index build: fence taken, population scanning, population commit.
 * Production runs the no-op; tests install latches here to land writers (and TM failovers) at a chosen point of
 * the build deterministically. One JVM-wide instance, like the client's protocol hooks, because the minicluster's
 * region servers and the Phoenix client share the test's JVM.
 */
public interface IndexBuildHooks {
    IndexBuildHooks NONE = new IndexBuildHooks() { };

    /** The TM handed out {@code fence} for {@code physicalTable}; the population transaction has not begun. */
    default void afterFence(String physicalTable, long fence) {
    }

    /** The population at {@code fence} has read {@code rowsSoFar} data rows (called after every row). */
    default void afterRowsScanned(long fence, long rowsSoFar) {
    }

    /**
     * Region side (in the region server's process): a population writing at {@code version} is about to write a
     * batch of {@code rows} index rows.
     */
    default void beforeRegionBatchWrite(long version, int rows) {
    }

    /** The population at {@code fence} wrote its index rows and is about to end its transaction. */
    default void beforePopulationCommit(long fence) {
    }

    /** The population at {@code fence} ended (committed or not); Phoenix has not yet marked the index ACTIVE. */
    default void afterPopulationCommit(long fence, boolean committed) {
    }

    static IndexBuildHooks current() {
        return Installed.hooks;
    }

    /** Installs hooks for the whole JVM; returns the previous ones. Tests restore them in a finally block. */
    static IndexBuildHooks install(IndexBuildHooks hooks) {
        IndexBuildHooks previous = Installed.hooks;
        Installed.hooks = hooks == null ? NONE : hooks;
        return previous;
    }

    /** Holder of the installed instance. */
    final class Installed {
        private static volatile IndexBuildHooks hooks = NONE;

        private Installed() {
        }
    }
}
