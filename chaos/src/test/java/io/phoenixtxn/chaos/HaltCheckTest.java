package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.HaltPoint;
import io.phoenixtxn.chaos.client.HaltRecord;
import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.record.Recorder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A halted client's transaction against its halt point: before the commit point it must stay invisible and never
 * committed in the commit table; after it, all of its writes must be in the final read and it must not be
 * invalidated.
 */
class HaltCheckTest {
    private static final long TX = 42;
    private static final List<Mop> APPEND_5_TO_KEY_1 = List.of(Mop.read(1), Mop.append(1, 5));

    @Test
    void haltedBeforeItsCommitPointAndInvisibleIsAsRequired() {
        HaltRecord halt = halt(HaltPoint.AFTER_TM_DECISION);
        assertEquals(List.of(), HaltCheck.check(halt, historyWithFinalRead(List.of(1L, 2L)),
                CommitTable.Entry.INVALIDATED));
        assertEquals(List.of(), HaltCheck.check(halt, historyWithFinalRead(List.of(1L, 2L)),
                CommitTable.Entry.ABSENT));
    }

    @Test
    void haltedBeforeItsCommitPointYetVisibleOrCommittedIsAProblem() {
        HaltRecord halt = halt(HaltPoint.AFTER_TM_DECISION);
        List<String> visible = HaltCheck.check(halt, historyWithFinalRead(List.of(1L, 5L)),
                CommitTable.Entry.ABSENT);
        assertEquals(1, visible.size(), visible.toString());
        assertTrue(visible.get(0).contains("append 5 to key 1"), visible.get(0));
        List<String> committed = HaltCheck.check(halt, historyWithFinalRead(List.of(1L)),
                CommitTable.Entry.committed(43));
        assertEquals(1, committed.size(), committed.toString());
        assertTrue(committed.get(0).contains("commit table holds a commit"), committed.get(0));
    }

    @Test
    void haltedAfterItsCommitPointMustBeVisibleAndNeverInvalidated() {
        HaltRecord halt = halt(HaltPoint.AFTER_COMMIT_POINT);
        assertEquals(List.of(), HaltCheck.check(halt, historyWithFinalRead(List.of(5L)),
                CommitTable.Entry.committed(43)));
        assertEquals(List.of(), HaltCheck.check(halt, historyWithFinalRead(List.of(5L)), CommitTable.Entry.ABSENT),
                "the cleaner may have completed it and removed its entry");
        List<String> lost = HaltCheck.check(halt, historyWithFinalRead(List.of(1L)), CommitTable.Entry.committed(43));
        assertEquals(1, lost.size(), lost.toString());
        assertTrue(lost.get(0).contains("lacks its writes"), lost.get(0));
        List<String> invalid = HaltCheck.check(halt, historyWithFinalRead(List.of(5L)),
                CommitTable.Entry.INVALIDATED);
        assertEquals(1, invalid.size(), invalid.toString());
        assertTrue(invalid.get(0).contains("invalid"), invalid.get(0));
    }

    @Test
    void withoutAFinalReadNothingCanBeTold() {
        Recorder recorder = new Recorder();
        recorder.invoke(0, Names.TXN, APPEND_5_TO_KEY_1);
        List<String> problems = HaltCheck.check(halt(HaltPoint.AFTER_COMMIT_POINT), recorder.history(),
                CommitTable.Entry.committed(43));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("no final read"), problems.get(0));
    }

    private static HaltRecord halt(HaltPoint point) {
        return new HaltRecord(point, TX, 43, 1_000, Names.TXN, APPEND_5_TO_KEY_1);
    }

    /** The halted transaction in flight for good, then a final read of key 1 seeing {@code elements}. */
    private static History historyWithFinalRead(List<Long> elements) {
        Recorder recorder = new Recorder();
        recorder.invoke(0, Names.TXN, APPEND_5_TO_KEY_1);
        recorder.invoke(1, Names.FINAL_READ, List.of(Mop.read(1)));
        recorder.ok(1, List.of(Mop.read(1, elements)));
        return recorder.history();
    }
}
