package io.phoenixtxn.tm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JVM's embedded TM restarted in the same JVM ({@link EmbeddedTm#shared} after {@link EmbeddedTm#shutdown})
 * continues its predecessor: timestamps above every one it issued, and transactions begun on it cannot commit over
 * a conflict. (A restart once began on fresh in-memory storage: low-water mark 0, empty conflict table.)
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EmbeddedTmTest {

    /**
     * A transaction begun on the old instance must not commit a write that conflicts with a commit made after it
     * began: the restarted TM's low-water mark is the previous epoch, so it aborts it.
     */
    @Test
    void embeddedTmRestartMustNotForgetConflicts() throws Exception {
        TmConfig config = TransactionManagerCoreTest.small(Map.of());
        EmbeddedTm.shutdown();
        try {
            TransactionManagerCore before = EmbeddedTm.shared(config);
            long t = before.begin();
            long u = before.begin();
            assertTrue(before.commit(u, new long[] {42}, new long[] {1}).isCommitted());
            EmbeddedTm.shutdown();
            TransactionManagerCore after = EmbeddedTm.shared(config);
            CommitDecision d = after.commit(t, new long[] {42}, new long[] {1});
            assertFalse(d.isCommitted(), "lost write-write conflict across EmbeddedTm restart: " + d);
        } finally {
            EmbeddedTm.shutdown();
        }
    }

    /** The restarted embedded TM never issues a timestamp below one the old instance issued. */
    @Test
    void embeddedTmRestartKeepsTimestampsMonotonic() throws Exception {
        TmConfig config = TransactionManagerCoreTest.small(Map.of());
        EmbeddedTm.shutdown();
        try {
            long last = 0;
            for (int i = 0; i < 2_000; i++) {
                last = EmbeddedTm.shared(config).begin(); // ~2 ms of slots: runs ahead of the wall clock
            }
            EmbeddedTm.shutdown();
            long next = EmbeddedTm.shared(config).begin();
            assertTrue(next > last, "restarted embedded TM went back from " + TimestampLayout.describe(last)
                    + " to " + TimestampLayout.describe(next));
        } finally {
            EmbeddedTm.shutdown();
        }
    }
}
