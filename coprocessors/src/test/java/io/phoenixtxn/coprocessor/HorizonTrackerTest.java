package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.CommitDecision;
import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The region server's horizon: unknown until fetched, the maximum of every answer, unchanged without one. */
class HorizonTrackerTest {
    private final AtomicReference<Object> answer = new AtomicReference<>();
    private final TransactionManager tm = new TransactionManager() {
        @Override
        public long begin() {
            throw new AssertionError();
        }

        @Override
        public CommitDecision commit(long txId, long since, long[] rows, long[] tables) {
            throw new AssertionError();
        }

        @Override
        public long fence(long tableId) {
            throw new AssertionError();
        }

        @Override
        public long lowWaterMark() {
            return 0;
        }

        @Override
        public Horizon horizon() throws TmException {
            Object a = answer.get();
            if (a instanceof TmException e) {
                throw e;
            }
            return (Horizon) a;
        }

        @Override
        public void close() {
        }
    };
    private final AtomicReference<TransactionManager> reachable = new AtomicReference<>();
    private final HorizonTracker tracker = new HorizonTracker(reachable::get);

    @Test
    void unknownUntilTheTmAnswersThenNeverLower() {
        assertEquals(Horizon.UNKNOWN, tracker.refresh(), "no TM reachable");
        reachable.set(tm);
        answer.set(Horizon.UNKNOWN);
        assertEquals(Horizon.UNKNOWN, tracker.refresh(), "a new primary in its grace period");
        answer.set(new Horizon(100, 40));
        assertEquals(new Horizon(100, 40), tracker.refresh());
        answer.set(new Horizon(90, 50)); // e.g. a new primary that adopted an old transaction
        assertEquals(new Horizon(100, 50), tracker.refresh(), "each part keeps its maximum");
        answer.set(new TmException("TM unreachable"));
        assertEquals(new Horizon(100, 50), tracker.refresh(), "no answer: stays");
        reachable.set(null);
        assertEquals(new Horizon(100, 50), tracker.refresh(), "no TM: stays");
        answer.set(Horizon.UNKNOWN);
        reachable.set(tm);
        assertEquals(new Horizon(100, 50), tracker.refresh(), "unknown answer: stays");
        assertEquals(new Horizon(100, 50), tracker.current());
    }
}
