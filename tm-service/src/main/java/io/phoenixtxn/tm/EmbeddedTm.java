package io.phoenixtxn.tm;

/**
 * The JVM's embedded transaction manager: one per process, created on first use, no network hop. Every Phoenix
 * connection service, the embedded stack's serve mode (which puts a server in front of it) and tests share it.
 * Embedded mode is for one JVM; several JVMs must share a TM server (bin/tm-server, or the stack's serve mode),
 * because two TMs would hand out overlapping snapshots with separate conflict tables.
 */
public final class EmbeddedTm {
    private static volatile TransactionManagerCore instance;

    private EmbeddedTm() {
    }

    /** The shared TM, started with {@code config} if this is the first call. */
    public static TransactionManagerCore shared(TmConfig config) {
        TransactionManagerCore tm = instance;
        if (tm != null && tm.isServing()) {
            return tm;
        }
        synchronized (EmbeddedTm.class) {
            if (instance == null || !instance.isServing()) {
                instance = TransactionManagerCore.startInMemory(config);
            }
            return instance;
        }
    }

    /** The shared TM if this JVM runs one, else null (region servers must never start a TM of their own). */
    public static TransactionManagerCore existing() {
        TransactionManagerCore tm = instance;
        return tm != null && tm.isServing() ? tm : null;
    }

    /** Stops the shared TM; the next {@link #shared} starts a new one (timestamps stay monotonic). */
    public static synchronized void shutdown() {
        if (instance != null) {
            instance.close();
            instance = null;
        }
    }
}
