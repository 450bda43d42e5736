package io.phoenixtxn.coprocessor.fastpath;

/**
 * Fault-injection points of the fast path on the region server, like the client's {@code ProtocolHooks}: production
 * runs the no-op; tests install latches to force an interleaving (a reader against a fast-path write that drew its
 * version but is not readable yet). JVM-wide, because the minicluster's region servers run in the test's JVM.
 */
public interface FastPathHooks {
    FastPathHooks NONE = new FastPathHooks() { };

    /** A fast-path write to {@code row} drew {@code version}; it is not readable yet (the row is locked). */
    default void afterVersionDrawn(byte[] row, long version) {
    }

    /** A transactional read that started at {@code readerStart} waits for a fast-path write in flight. */
    default void readerWaits(long readerStart) {
    }

    static FastPathHooks current() {
        return Installed.hooks;
    }

    /** Installs hooks for the whole JVM; returns the previous ones. Tests restore them in a finally block. */
    static FastPathHooks install(FastPathHooks hooks) {
        FastPathHooks previous = Installed.hooks;
        Installed.hooks = hooks == null ? NONE : hooks;
        return previous;
    }

    /** Holder of the installed instance. */
    final class Installed {
        private static volatile FastPathHooks hooks = NONE;

        private Installed() {
        }
    }
}
