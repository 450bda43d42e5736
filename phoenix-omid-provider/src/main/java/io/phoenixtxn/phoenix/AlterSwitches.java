package io.phoenixtxn.phoenix;

import org.apache.phoenix.jdbc.PhoenixConnection;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Phoenix's {@code ALTER TABLE t SET TRANSACTIONAL=true} as the provider sees it. Phoenix 5.2.1 gives the provider no
 * hook in that statement, but two calls of it run on the statement's thread, in this order, before the catalog is
 * written: {@code isUnsupported(ALTER_NONTX_TO_TX)} from {@code MetaDataClient} (evaluateStmtProperties), then the DDL
 * timestamp taken from a transaction on the statement's connection ({@code TransactionUtil.getTableTimestamp}:
 * {@code begin()} if none runs, then {@code getTransactionId()}), which Phoenix rolls back before it writes the catalog.
 * The first call marks the thread ({@link #askedToSwitch}); the context that answers the second, called from
 * {@code getTableTimestamp} ({@link #calledForDdlTimestamp}), takes the mark and so knows the connection and the DDL's
 * timestamp. It then:
 * <ul>
 *   <li>puts {@link CatalogProviderObserver} on SYSTEM.CATALOG before the catalog write, so the table's indexes get
 *       their transaction provider ({@link CatalogObserverInstaller});</li>
 *   <li>marks the connection ({@link #pending}): its next transaction completes the switch of every table and index
 *       the catalog shows made transactional since the DDL time before it begins at the TM, so it begins after their
 *       conversion fences ({@link ConversionFence}) and the statements that follow the ALTER on its connection
 *       commit (Phoenix's own {@code ParameterizedTransactionIT.testNonTxToTxTable} writes right after its ALTER).</li>
 * </ul>
 * Both checks of the caller keep a mark from acting anywhere else: a mark that a failed statement left is dropped by
 * the next call that is not the DDL timestamp's, or lapses after {@link #MARK_VALID_NANOS}.
 */
final class AlterSwitches {
    /** The class of Phoenix's ALTER (and CREATE) code, the one caller of isUnsupported(ALTER_NONTX_TO_TX) we act on. */
    static final String PHOENIX_DDL_CLASS = "org.apache.phoenix.schema.MetaDataClient";
    /** Phoenix's DDL timestamp: TransactionUtil.getTableTimestamp. */
    static final String PHOENIX_TIMESTAMP_CLASS = "org.apache.phoenix.util.TransactionUtil";
    static final String PHOENIX_TIMESTAMP_METHOD = "getTableTimestamp";
    /** Frames looked at above a provider call (Phoenix's call chains here are 2-3 frames deep). */
    private static final int CALLER_FRAMES = 8;
    /** A mark is acted on this long after Phoenix asked; a few statements of client code separate the two calls. */
    static final long MARK_VALID_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** What an ALTER on this thread asked, and whether the observer was put in place for it already. */
    private static final class Mark {
        final long askedAtNanos = System.nanoTime();
        boolean observerInstalled;
    }

    private static final ThreadLocal<Mark> ASKED = new ThreadLocal<>();
    private static final StackWalker WALKER = StackWalker.getInstance();
    /** Connections whose next begin completes the switches of an ALTER, with the ALTER's DDL time (ms). */
    private static final Map<PhoenixConnection, Long> PENDING = Collections.synchronizedMap(new WeakHashMap<>());
    /** Whether {@link #PENDING} may hold anything: every begin() reads it, so the map is locked only when it may. */
    private static volatile boolean anyPending;

    private AlterSwitches() {
    }

    /**
     * Phoenix asked, on this thread, whether a table may be made transactional, and was told it may. Marks the thread
     * when the question comes from Phoenix's ALTER code (CREATE TABLE over an existing HBase table asks from the
     * connection services, after its timestamp: nothing to mark).
     */
    static void askedToSwitch() {
        if (calledFrom(PHOENIX_DDL_CLASS, null)) {
            ASKED.set(new Mark());
        }
    }

    /** Whether this thread carries a live mark; a lapsed one is dropped. */
    static boolean switchAsked() {
        Mark mark = ASKED.get();
        if (mark == null) {
            return false;
        }
        if (System.nanoTime() - mark.askedAtNanos > MARK_VALID_NANOS) {
            ASKED.remove();
            return false;
        }
        return true;
    }

    /**
     * Whether the current provider call serves Phoenix's DDL timestamp (TransactionUtil.getTableTimestamp). A marked
     * thread whose call does not is not running the ALTER that marked it: the mark is dropped.
     */
    static boolean calledForDdlTimestamp() {
        if (calledFrom(PHOENIX_TIMESTAMP_CLASS, PHOENIX_TIMESTAMP_METHOD)) {
            return true;
        }
        ASKED.remove();
        return false;
    }

    /** Whether the observer was installed for this thread's mark already (by begin()). */
    static boolean observerInstalledForMark() {
        Mark mark = ASKED.get();
        return mark != null && mark.observerInstalled;
    }

    static void observerInstalled() {
        Mark mark = ASKED.get();
        if (mark != null) {
            mark.observerInstalled = true;
        }
    }

    /** Clears this thread's mark; returns whether a live one was set. */
    static boolean takeAsked() {
        boolean asked = switchAsked();
        ASKED.remove();
        return asked;
    }

    /** The next transaction of {@code connection} completes the switches of tables made transactional this late. */
    static void pending(PhoenixConnection connection, long ddlTimeMs) {
        PENDING.merge(connection, ddlTimeMs, Math::min);
        anyPending = true;
    }

    /** The DDL time a switch of {@code connection} waits to be completed from, or null; clears it. */
    static Long takePending(PhoenixConnection connection) {
        if (!anyPending || connection == null) {
            return null;
        }
        synchronized (PENDING) {
            Long since = PENDING.remove(connection);
            anyPending = !PENDING.isEmpty();
            return since;
        }
    }

    /** Whether a frame of {@code className} (and {@code method}, if given) is among the callers' first frames. */
    private static boolean calledFrom(String className, String method) {
        return WALKER.walk(frames -> frames.limit(CALLER_FRAMES).anyMatch(f -> f.getClassName().equals(className)
                && (method == null || f.getMethodName().equals(method))));
    }
}
