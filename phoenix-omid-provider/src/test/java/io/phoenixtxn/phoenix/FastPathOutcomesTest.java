package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathAbortedException.Reason;
import io.phoenixtxn.client.fastpath.FastPathInDoubtException;
import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the application sees of a failed bwc of a routed statement (design.md sec. 4.11, Phoenix mapping). */
class FastPathOutcomesTest {
    private static final TableName T = TableName.valueOf("T");

    @Test
    void abortsARegularTransactionGetsPastAreRetriedNotThrown() {
        for (Reason reason : new Reason[] {Reason.TENTATIVE_VERSION, Reason.NEWER_COMMIT, Reason.SLOT_UNAVAILABLE}) {
            assertNull(FastPathOutcomes.ofAbort(FastPathAbortedException.of(reason, "x"), T), reason.name());
        }
    }

    @Test
    void aFencedRefusalIsSql523ForPhoenixsCommitRetry() {
        SQLException e = FastPathOutcomes.ofAbort(FastPathAbortedException.of(Reason.FENCED, "index"), T);
        assertNotNull(e);
        assertEquals(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION.getErrorCode(), e.getErrorCode());
        assertEquals(523, e.getErrorCode());
        assertTrue(e.getMessage().contains("index is being created"), e.getMessage());
    }

    @Test
    void aWriteInDoubtSaysTheOutcomeIsUnknownAndIsNotAConflict() {
        SQLException e = FastPathOutcomes.ofInDoubt(FastPathInDoubtException.of("connection reset"), T);
        assertEquals(SQLExceptionCode.TRANSACTION_FAILED.getErrorCode(), e.getErrorCode(),
                "not 523: Phoenix must not re-send a write that may have been applied");
        assertTrue(e.getMessage().contains("is unknown"), e.getMessage());
        assertTrue(e.getMessage().contains("not retried"), e.getMessage());
    }

    @Test
    void aFailureBeforeTheSendWroteNothing() {
        SQLException e = FastPathOutcomes.ofFailureBeforeSend(new IOException("table unavailable"), T);
        assertEquals(SQLExceptionCode.TRANSACTION_FAILED.getErrorCode(), e.getErrorCode());
        assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
    }

    /**
     * A failure of the write itself (e.g. the answer could not be decoded after the region server applied it) may
     * have written: reported as unknown, never as "nothing was written" (a review found it reported so).
     */
    @Test
    void anyOtherFailureOfTheWriteIsInDoubt() {
        SQLException e = FastPathOutcomes.ofFailure(new IOException("unexpected answer"), T);
        assertEquals(SQLExceptionCode.TRANSACTION_FAILED.getErrorCode(), e.getErrorCode(),
                "not 523: Phoenix must not re-send a write that may have been applied");
        assertTrue(e.getMessage().contains("is unknown") && !e.getMessage().contains("nothing was written"),
                e.getMessage());
    }
}
